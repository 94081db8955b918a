/** Test seeding: an organization, a workspace (with its default line) and a system actor. */
import type { Actor } from "../../auth/permissions";
import type { AppDeps } from "../../deps";
import { newId } from "../../ids";
import { createWorkspaceRow } from "../../services/workspaces/create-workspace";
import { createAutomation } from "../../services/automations";
import { getRunOrThrow, startRun } from "../../services/runs";
import { waitForRun } from "./wait";

export async function seedWorkspace(deps: Pick<AppDeps, "store">): Promise<{ workspaceId: string; organizationId: string; actor: Actor }> {
  const organizationId = newId("org");
  const ws = await deps.store.tx(async (s) => {
    await s.organizations.insert({ id: organizationId, name: "Test org", createdAt: new Date().toISOString() });
    return createWorkspaceRow(s, organizationId, "Test");
  });
  return { workspaceId: ws.id, organizationId, actor: { kind: "user", userId: "usr_test", organizationId, role: "owner", label: "tester" } };
}

let n = 0;
/** A linear graph: manual trigger → nodes in order. */
export function linearGraph(
  steps: Array<{ key: string; config: Record<string, unknown>; name?: string }>,
  trigger = { key: "core.manual", config: {} as Record<string, unknown> },
) {
  const nodes = [
    { id: "t", name: "start", key: trigger.key, config: trigger.config },
    ...steps.map((s, i) => ({ id: `n${i + 1}`, name: s.name ?? `step${i + 1}`, key: s.key, config: s.config })),
  ];
  const edges = nodes.slice(1).map((node, i) => ({ from: nodes[i]!.id, to: node.id }));
  return { name: `test ${++n}`, concurrency: 100, graph: { nodes, edges } };
}

/** Saves `linearGraph(steps)`, starts it by hand with `payload`, waits for the run to end (a runner must be running) and returns it. */
export async function runLinear(deps: AppDeps, ws: { workspaceId: string; actor: Actor }, steps: Parameters<typeof linearGraph>[0], payload: unknown = {}) {
  const a = await createAutomation(deps, ws.actor, ws.workspaceId, linearGraph(steps));
  const r = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id, payload });
  await waitForRun(deps, r.id);
  return getRunOrThrow(deps, ws.actor, ws.workspaceId, r.id);
}
