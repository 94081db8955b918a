import { beforeEach, describe, expect, it } from "vitest";
import { useCanvasStore } from "./canvas-store";
import { freeSpot, NODE_H, NODE_W } from "./graph-utils";
import type { FlowNodeData, GraphDoc } from "./types";

const kindOf = (key: string) => (key.includes(".on") || key === "core.manual" ? "trigger" : "component") as "trigger" | "component";
const doc: GraphDoc = {
  nodes: [
    { id: "t", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
    { id: "a", name: "fetch", key: "core.http", config: {}, position: { x: 320, y: 0 } },
  ],
  edges: [{ from: "t", to: "a" }],
};
const store = () => useCanvasStore.getState();
const overlaps = (p: { x: number; y: number }, q: { x: number; y: number }) => Math.abs(p.x - q.x) < NODE_W && Math.abs(p.y - q.y) < NODE_H;

describe("placing a clicked node", () => {
  it("goes right of the anchor on its row when that is free", () => {
    const at = freeSpot([{ position: { x: 0, y: 0 } }], { anchor: { position: { x: 0, y: 0 } } });
    expect(at.y).toBe(0);
    expect(at.x).toBeGreaterThanOrEqual(NODE_W + 40);
  });

  it("never lands on another node: steps to a free row when the spot is taken", () => {
    const nodes = [{ position: { x: 0, y: 0 } }, { position: { x: 320, y: 0 } }];
    const at = freeSpot(nodes, { anchor: nodes[0]! });
    for (const n of nodes) expect(overlaps(at, n.position)).toBe(false);
    expect(at.x).toBeGreaterThan(0);
  });

  it("without an anchor, is centred on the given point unless something is there", () => {
    expect(freeSpot([], { around: { x: 500, y: 300 } })).toEqual({ x: 500 - NODE_W / 2, y: 300 - NODE_H / 2 });
    const taken = [{ position: { x: 380, y: 259 } }];
    expect(overlaps(freeSpot(taken, { around: { x: 500, y: 300 } }), taken[0]!.position)).toBe(false);
  });
});

describe("canvas store: add after, disable", () => {
  beforeEach(() => store().load(structuredClone(doc), kindOf));

  it("adds a component connected from the given node in one undo step", () => {
    const id = store().addNode({ key: "core.filter", kind: "component", baseName: "filter", position: { x: 640, y: 0 }, connectFrom: "a" });
    expect(store().edges.map((e) => [e.source, e.target])).toContainEqual(["a", id]);
    expect(store().nodes.find((n) => n.id === id)?.selected).toBe(true);
    store().undo();
    expect(store().nodes.some((n) => n.id === id)).toBe(false);
    expect(store().edges).toHaveLength(1);
  });

  it("does not wire a trigger to anything", () => {
    store().addNode({ key: "core.manual", kind: "trigger", baseName: "manual", position: { x: 0, y: 200 }, connectFrom: "a" });
    expect(store().edges).toHaveLength(1);
  });

  it("gives every unit node an accessible name source", () => {
    const id = store().addNode({ key: "core.filter", kind: "component", baseName: "filter", position: { x: 0, y: 0 } });
    for (const n of store().nodes) expect(n.domAttributes).toEqual({ "aria-labelledby": `cv-node-label-${n.id}` });
    expect(id).toBeTruthy();
  });

  it("disables and enables nodes; the flag is saved only when set", () => {
    store().toggleDisabled(["a"]);
    expect(
      store()
        .toDocument()
        .nodes.find((n) => n.id === "a"),
    ).toMatchObject({ disabled: true });
    expect(store().dirty).toBe(true);
    // A mixed set is disabled as a whole first.
    store().toggleDisabled(["a", "t"]);
    expect(store().nodes.every((n) => (n.data as FlowNodeData).disabled)).toBe(true);
    store().toggleDisabled(["a", "t"]);
    expect(
      store()
        .toDocument()
        .nodes.every((n) => !("disabled" in n)),
    ).toBe(true);
    store().undo();
    expect(store().nodes.every((n) => (n.data as FlowNodeData).disabled)).toBe(true);
  });

  it("loads the flag from the document", () => {
    store().load({ ...doc, nodes: doc.nodes.map((n) => (n.id === "a" ? { ...n, disabled: true } : n)) }, kindOf);
    expect((store().nodes.find((n) => n.id === "a")!.data as FlowNodeData).disabled).toBe(true);
    expect(store().toDocument()).toEqual({
      ...doc,
      nodes: doc.nodes.map((n) => ({ ...n, connectionId: null, ...(n.id === "a" ? { disabled: true } : {}) })),
      notes: [],
    });
  });
});
