/**
 * Drafts: a disabled automation saves with its problems listed; enabling, saving enabled and running
 * need a graph without errors; picker labels are kept while their value is still there.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps } from "../../testing";
import { seedWorkspace } from "../../runner/testing/seed";
import { registerStubs } from "../../runner/testing/stub-integration";
import { startRun } from "../runs/start-run";
import { createAutomation, getAutomationOrThrow, patchAutomation, replaceAutomation } from ".";

registerStubs();
let deps: Awaited<ReturnType<typeof createTestDeps>>;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
beforeEach(async () => {
  deps = await createTestDeps();
  ws = await seedWorkspace(deps);
});
afterEach(async () => deps.close());

const graph = (value: string) => ({
  nodes: [
    { id: "t", name: "start", key: "core.manual", config: {} },
    { id: "a", name: "first", key: "stub.echo", config: { value: 1 } },
    { id: "b", name: "second", key: "stub.echo", config: { value } },
  ],
  edges: [
    { from: "t", to: "a" },
    { from: "a", to: "b" },
  ],
});

describe("drafts", () => {
  it("a disabled automation is saved with its problems; enabling it is refused until they are fixed", async () => {
    const draft = await createAutomation(deps, ws.actor, ws.workspaceId, { name: "draft", graph: graph("{{ $steps.frist.data.value }}") });
    expect(draft.version).toBe(1);
    expect(draft.enabled).toBe(false);
    expect(draft.problems).toEqual([
      { path: "graph.nodes.2.config.value", nodeId: "b", severity: "error", message: 'No step is named "frist". Did you mean $steps.first?' },
    ]);
    // Reopening shows the same problems.
    expect((await getAutomationOrThrow(deps, ws.actor, ws.workspaceId, draft.id)).problems).toHaveLength(1);

    await expect(patchAutomation(deps, ws.actor, ws.workspaceId, draft.id, { enabled: true })).rejects.toMatchObject({
      code: "validation_failed",
      errors: [expect.objectContaining({ nodeId: "b", path: "graph.nodes.2.config.value" })],
    });
    expect((await getAutomationOrThrow(deps, ws.actor, ws.workspaceId, draft.id)).enabled).toBe(false);
    // A run of the draft is refused too, with the same list.
    await expect(startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: draft.id })).rejects.toMatchObject({
      code: "validation_failed",
      errors: [expect.objectContaining({ nodeId: "b" })],
    });

    const fixed = await replaceAutomation(deps, ws.actor, ws.workspaceId, draft.id, { name: "draft", graph: graph("{{ $steps.first.data.value }}") });
    expect(fixed.problems).toEqual([]);
    const enabled = await patchAutomation(deps, ws.actor, ws.workspaceId, draft.id, { enabled: true });
    expect(enabled.enabled).toBe(true);
    const run = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: draft.id });
    expect(run.status).toBe("queued");
  });

  it("saving an enabled automation with problems is refused and keeps the live version", async () => {
    const live = await createAutomation(deps, ws.actor, ws.workspaceId, { name: "live", enabled: true, graph: graph("{{ $steps.first.data.value }}") });
    await expect(replaceAutomation(deps, ws.actor, ws.workspaceId, live.id, { name: "live", graph: graph("{{ $steps.nope.data }}") })).rejects.toMatchObject({
      code: "validation_failed",
      message: expect.stringMatching(/save it with enabled: false to keep it as a draft/),
    });
    expect((await getAutomationOrThrow(deps, ws.actor, ws.workspaceId, live.id)).version).toBe(1);
    // Saving it disabled keeps the draft (and stops its triggers).
    const draft = await replaceAutomation(deps, ws.actor, ws.workspaceId, live.id, { name: "live", enabled: false, graph: graph("{{ $steps.nope.data }}") });
    expect(draft).toMatchObject({ version: 2, enabled: false });
    expect(draft.problems.map((p) => p.nodeId)).toEqual(["b"]);
  });

  it("warnings never block enabling", async () => {
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, { name: "warn", enabled: true, graph: graph("{{ $steps.first.data.valu }}") });
    expect(a.enabled).toBe(true);
    expect(a.problems).toEqual([expect.objectContaining({ severity: "warning", message: expect.stringMatching(/Did you mean "value"/) })]);
  });

  it("a malformed document or duplicate node ids are refused even as a draft", async () => {
    await expect(createAutomation(deps, ws.actor, ws.workspaceId, { name: "", graph: graph("x") })).rejects.toMatchObject({
      code: "validation_failed",
      errors: [expect.objectContaining({ path: "name" })],
    });
    const dup = graph("x");
    dup.nodes[2]!.id = "a";
    await expect(createAutomation(deps, ws.actor, ws.workspaceId, { name: "dup", graph: dup })).rejects.toMatchObject({
      errors: [expect.objectContaining({ path: "graph.nodes.2.id" })],
    });
  });

  it("keeps a picker's label while its path holds that value and drops stale ones", async () => {
    const g = graph("10002");
    const labelled = {
      ...g,
      nodes: g.nodes.map((n) => (n.id === "b" ? { ...n, labels: { value: { value: "10002", label: "Bug" }, gone: { value: "1", label: "Old" } } } : n)),
    };
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, { name: "labels", graph: labelled });
    expect(a.graph.nodes.find((n) => n.id === "b")!.labels).toEqual({ value: { value: "10002", label: "Bug" } });
    // Changing the value through the API without a label: the old label is not shown for the new value.
    const changed = await replaceAutomation(deps, ws.actor, ws.workspaceId, a.id, {
      name: "labels",
      graph: { ...a.graph, nodes: a.graph.nodes.map((n) => (n.id === "b" ? { ...n, config: { value: "10003" } } : n)) },
    });
    expect(changed.graph.nodes.find((n) => n.id === "b")!.labels).toBeUndefined();
  });
});
