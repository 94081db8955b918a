/** Pinned outputs in the automation document: size limits at save time, and kept out of what production runs see. */
import { describe, expect, it } from "vitest";
import { indexGraph } from "../../graphs";
import { GraphSchema, MAX_PINNED_BYTES } from "../../contracts/graph";
import { validateDocument } from "./validate-automation";

const pin = (bytes: number) => ({ output: { type: "core.http.response", timestamp: "2030-01-01T00:00:00.000Z", data: "x".repeat(bytes) } });
const doc = (pins: Array<ReturnType<typeof pin> | undefined>) => ({
  name: "pins",
  graph: {
    nodes: [
      { id: "t", name: "start", key: "core.manual", config: {} },
      ...pins.map((p, i) => ({ id: `n${i}`, name: `n${i}`, key: "core.filter", config: { condition: true }, ...(p ? { pinned: p } : {}) })),
    ],
    edges: pins.map((_, i) => ({ from: i ? `n${i - 1}` : "t", to: `n${i}` })),
  },
});

describe("pinned data", () => {
  it("is refused above 1 MiB per node and 4 MiB per automation, naming the node's field", () => {
    expect(validateDocument(doc([pin(1000)]))).toEqual([]);
    const one = validateDocument(doc([undefined, pin(MAX_PINNED_BYTES)]));
    expect(one).toEqual([
      expect.objectContaining({
        path: "graph.nodes.2.pinned.output",
        message: expect.stringMatching(/^Pinned data is \d+ bytes, above the 1048576-byte limit$/),
      }),
    ]);
    const total = validateDocument(doc([pin(900_000), pin(900_000), pin(900_000), pin(900_000), pin(900_000)]));
    expect(total).toEqual([expect.objectContaining({ path: "graph.nodes", message: expect.stringContaining("above the 4194304-byte limit per automation") })]);
  });

  it("is left out of the graph the runner sees; a disabled node's pin is not offered to tests", () => {
    const g = GraphSchema.parse(doc([pin(10), undefined, pin(10)]).graph);
    g.nodes[3]!.disabled = true;
    const indexed = indexGraph(g);
    expect(indexed.graph.nodes.some((n) => "pinned" in n)).toBe(false);
    expect([...indexed.pinned]).toEqual(["n0"]);
    expect(g.nodes[1]!.pinned).toBeDefined(); // the stored document is untouched
  });
});
