/**
 * Names instead of ids: the audit log names its targets (also after a rename or a deletion) and the
 * runs list names the trigger node of the version that ran.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps } from "../../testing";
import { seedWorkspace } from "../../runner/testing/seed";
import { registerStubs } from "../../runner/testing/stub-integration";
import { createAutomation, deleteAutomation, patchAutomation, replaceAutomation } from "../automations";
import { listRuns } from "../runs/get-runs";
import { startRun } from "../runs/start-run";
import { listAudit } from "./list-audit";

registerStubs();
let deps: Awaited<ReturnType<typeof createTestDeps>>;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
beforeEach(async () => {
  deps = await createTestDeps();
  ws = await seedWorkspace(deps);
});
afterEach(async () => deps.close());

const graph = (trigger: string) => ({
  nodes: [
    { id: "t", name: trigger, key: "core.manual", config: {} },
    { id: "a", name: "echo", key: "stub.echo", config: { value: 1 } },
  ],
  edges: [{ from: "t", to: "a" }],
});

describe("names, not ids", () => {
  it("the audit log names each target, also after a rename and a deletion", async () => {
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, { name: "Silence disk alerts", graph: graph("start") });
    await patchAutomation(deps, ws.actor, ws.workspaceId, a.id, { name: "Silence disk alerts (prod)" });
    const b = await createAutomation(deps, ws.actor, ws.workspaceId, { name: "Short-lived", graph: graph("start") });
    await deleteAutomation(deps, ws.actor, ws.workspaceId, b.id);
    const { items } = await listAudit(deps, ws.actor);
    // Entries within the same millisecond have no defined order.
    expect(items).toHaveLength(4);
    expect(items.map((e) => [e.action, e.target, e.targetName])).toEqual(
      expect.arrayContaining([
        ["automation.delete", b.id, "Short-lived"],
        ["automation.create", b.id, "Short-lived"],
        ["automation.update", a.id, "Silence disk alerts (prod)"],
        ["automation.create", a.id, "Silence disk alerts"],
      ]),
    );
  });

  it("runs name the trigger node of the version they ran, even after it was renamed", async () => {
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, { name: "runs", graph: graph("nightly") });
    const first = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id });
    expect(first.trigger.name).toBe("nightly");
    await replaceAutomation(deps, ws.actor, ws.workspaceId, a.id, { name: "runs", graph: graph("byHand") });
    await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id });
    const { data } = await listRuns(deps, ws.actor, ws.workspaceId, { automationId: a.id });
    expect(data.map((r) => r.trigger.name).sort()).toEqual(["byHand", "nightly"]);
    expect(data.find((r) => r.id === first.id)!.trigger).toEqual({ nodeId: "t", eventId: first.trigger.eventId, name: "nightly" });
  });
});
