import { beforeEach, describe, expect, it } from "vitest";
import { useCanvasStore } from "./canvas-store";
import type { FlowNodeData, GraphDoc } from "./types";
import { GraphSchema } from "@/server/contracts/graph";

const kindOf = (key: string) => (key.includes(".on") ? "trigger" : "component") as "trigger" | "component";
const doc: GraphDoc = {
  nodes: [
    { id: "n1", name: "onAlert", key: "metrics.onAlert", config: { statuses: ["firing"] }, position: { x: 0, y: 0 } },
    {
      id: "n2",
      name: "silence",
      key: "metrics.createSilence",
      config: { matchers: [{ name: "alertname", value: "{{ $trigger.data.labels.alertname }}" }], comment: "x" },
      position: { x: 300, y: 0 },
    },
    { id: "n3", name: "check", key: "metrics.getSilence", config: { silence: "{{ $steps.silence.data.silenceID }}" }, position: { x: 600, y: 0 } },
  ],
  edges: [
    { from: "n1", to: "n2" },
    { from: "n2", to: "n3" },
  ],
};

const store = () => useCanvasStore.getState();
const data = (id: string) => store().nodes.find((n) => n.id === id)!.data as FlowNodeData;

describe("canvas store", () => {
  beforeEach(() => store().load(structuredClone(doc), kindOf));

  it("round-trips the automation document", () => {
    const out = store().toDocument();
    expect(out.nodes).toEqual(doc.nodes.map((n) => ({ ...n, connectionId: null })));
    expect(out.edges).toEqual(doc.edges);
    expect(store().dirty).toBe(false);
  });

  it("updates config immutably, marks dirty, and undo/redo restore exact states", () => {
    const before = store().nodes;
    store().updateNodeConfig("n2", { comment: "maintenance" });
    expect(store().nodes).not.toBe(before);
    expect(before.find((n) => n.id === "n2")!.data.config).toMatchObject({ comment: "x" });
    expect(data("n2").config.comment).toBe("maintenance");
    expect(store().dirty).toBe(true);
    store().undo();
    expect(data("n2").config.comment).toBe("x");
    store().redo();
    expect(data("n2").config.comment).toBe("maintenance");
    store().undo();
    store().updateNodeConfig("n2", { comment: "other" });
    expect(store().future).toHaveLength(0);
  });

  it("renaming a node rewrites expressions that reference it and refuses duplicates", () => {
    expect(store().renameNode("n2", "check").ok).toBe(false);
    expect(store().renameNode("n2", "9bad").ok).toBe(false);
    expect(store().renameNode("n2", "mute").ok).toBe(true);
    expect(data("n2").name).toBe("mute");
    expect(data("n3").config.silence).toBe("{{ $steps.mute.data.silenceID }}");
    store().undo();
    expect(data("n3").config.silence).toBe("{{ $steps.silence.data.silenceID }}");
  });

  it("refuses edges into triggers, duplicates and cycles", () => {
    expect(store().connect({ source: "n2", target: "n1", sourceHandle: null, targetHandle: null }).ok).toBe(false);
    expect(store().connect({ source: "n1", target: "n2", sourceHandle: null, targetHandle: null }).ok).toBe(false);
    expect(store().connect({ source: "n3", target: "n2", sourceHandle: null, targetHandle: null }).reason).toMatch(/loop/);
    expect(store().connect({ source: "n1", target: "n3", sourceHandle: null, targetHandle: null }).ok).toBe(true);
    expect(store().edges).toHaveLength(3);
  });

  it("copy/paste gives fresh ids, unique names, internal edges and rewritten references", () => {
    store().select(["n2", "n3"]);
    const payload = store().copySelection()!;
    expect(payload.nodes).toHaveLength(2);
    expect(payload.edges).toEqual([{ from: "n2", to: "n3" }]);
    const { ids } = store().paste(JSON.parse(JSON.stringify(payload)));
    expect(ids).toHaveLength(2);
    expect(store().nodes).toHaveLength(5);
    const pasted = ids.map((id) => data(id));
    expect(pasted.map((d) => d.name)).toEqual(["silence2", "check2"]);
    expect(pasted[1].config.silence).toBe("{{ $steps.silence2.data.silenceID }}");
    expect(store().edges.filter((e) => ids.includes(e.source) && ids.includes(e.target))).toHaveLength(1);
    store().undo();
    expect(store().nodes).toHaveLength(3);
  });

  it("copy/paste carries a node's pinned data into the pasted node and the saved document", () => {
    const pinned = { output: { type: "metrics.silence", timestamp: "2026-11-25T02:00:00.000Z", data: { silenceID: "abc" } }, runId: "run_1" };
    store().setPinned("n2", pinned);
    store().select(["n2"]);
    const { ids } = store().paste(JSON.parse(JSON.stringify(store().copySelection()!)));
    expect(data(ids[0]!).pinned).toEqual(pinned);
    const saved = store()
      .toDocument()
      .nodes.find((n) => n.id === ids[0]);
    expect(saved?.pinned).toEqual(pinned);
    // The copy is its own: unpinning the original leaves it.
    store().setPinned("n2", null);
    expect(data(ids[0]!).pinned).toEqual(pinned);
  });

  it("pastes pinned data only within the limits (1 MiB a node, 4 MiB an automation), naming what it left out", () => {
    const pin = (chars: number) => ({ output: { type: "t", timestamp: "2026-11-25T02:00:00.000Z", data: "x".repeat(chars) } });
    for (const id of ["n1", "n2", "n3"]) store().setPinned(id, pin(1_000_000));
    store().select(["n2", "n3"]);
    const payload = JSON.parse(JSON.stringify(store().copySelection()!));
    payload.nodes[0].data.pinned = pin(700_000); // fits: 3.7 MiB in all
    payload.nodes[1].data.pinned = pin(700_000); // would make it 4.4 MiB
    const { ids, message } = store().paste(payload);
    expect(data(ids[0]!).pinned).toEqual(pin(700_000));
    expect(data(ids[1]!).pinned).toBeUndefined();
    expect(message).toBe("Pasted without pinned data — check: this automation's pinned data would go above its 4 MiB limit (unpin other nodes to make room).");
    expect(GraphSchema.safeParse(store().toDocument()).success).toBe(true);

    // A node pinning more than 1 MiB (a clipboard from elsewhere) is pasted unpinned.
    for (const id of ["n1", "n2", "n3", ids[0]!]) store().setPinned(id, null);
    payload.nodes[0].data.pinned = pin(1_100_000);
    const big = store().paste(payload);
    expect(data(big.ids[0]!).pinned).toBeUndefined();
    expect(data(big.ids[1]!).pinned).toEqual(pin(700_000));
    expect(big.message).toBe("Pasted without pinned data — silence (1.05 MiB): above the 1 MiB a node may pin.");

    // Duplicate says the same.
    store().select([big.ids[1]!]);
    for (let i = 0; i < 4; i++) expect(store().duplicateSelected()).toBeNull();
    expect(store().duplicateSelected()).toMatch(/would go above its 4 MiB limit/);
  });

  it("deletes the selection with its edges in one undoable step", () => {
    store().select(["n2"]);
    store().deleteSelected();
    expect(store().nodes.map((n) => n.id)).toEqual(["n1", "n3"]);
    expect(store().edges).toHaveLength(0);
    store().undo();
    expect(store().nodes).toHaveLength(3);
    expect(store().edges).toHaveLength(2);
  });

  it("a drag is one history entry", () => {
    store().onNodesChange([{ type: "position", id: "n1", position: { x: 10, y: 0 }, dragging: true }]);
    store().onNodesChange([{ type: "position", id: "n1", position: { x: 50, y: 5 }, dragging: true }]);
    store().onNodesChange([{ type: "position", id: "n1", position: { x: 60, y: 5 }, dragging: false }]);
    expect(store().past).toHaveLength(1);
    expect(store().nodes[0].position).toEqual({ x: 60, y: 5 });
    store().undo();
    expect(store().nodes[0].position).toEqual({ x: 0, y: 0 });
  });

  it("tidy up lays nodes out left to right in edge order", async () => {
    store().onNodesChange([{ type: "position", id: "n3", position: { x: -900, y: 400 } }]);
    await store().tidyUp();
    const xs = ["n1", "n2", "n3"].map((id) => store().nodes.find((n) => n.id === id)!.position.x);
    expect(xs[0]).toBeLessThan(xs[1]);
    expect(xs[1]).toBeLessThan(xs[2]);
  });

  it("editing a field clears the server problem on that field only", () => {
    store().setProblems([
      { nodeId: "n2", path: "config.comment", message: "Required" },
      { nodeId: "n2", path: "config.duration", message: "Required" },
    ]);
    store().updateNodeConfig("n2", { comment: "ok" });
    expect(store().problems.map((p) => p.path)).toEqual(["config.duration"]);
  });
});
