/** Rows for the store contract tests (db/stores/*.test.ts): a workspace, connections, automations, intakes. */
import { randomUUID } from "node:crypto";
import type { Store } from "../../store";
import type { TestStorage } from "../../testing";
import type { AutomationRow, ConnectionRow, IntakeRow, StoredGraph } from "../../types";

export const uid = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
export const iso = (ms = Date.now()) => new Date(ms).toISOString();
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function seedWorkspace(store: Store): Promise<string> {
  const organizationId = uid("org");
  const workspaceId = uid("ws");
  await store.organizations.insert({ id: organizationId, name: "Org", createdAt: iso() });
  await store.workspaces.insert({ id: workspaceId, organizationId, name: "WS", createdAt: iso(), updatedAt: iso() });
  return workspaceId;
}

export function connectionRow(workspaceId: string, over: Partial<ConnectionRow> = {}): ConnectionRow {
  return {
    id: uid("con"),
    workspaceId,
    integration: "stub",
    name: "c",
    config: { baseUrl: "http://x" },
    secretsEnc: null,
    tokensEnc: null,
    tokenVersion: 0,
    tokenExpiresAt: null,
    refreshLockOwner: null,
    refreshLockUntil: null,
    state: {},
    status: "ready",
    statusMessage: null,
    createdBy: null,
    createdAt: iso(),
    updatedAt: iso(),
    ...over,
  };
}

export const graphOf = (nodes: StoredGraph["nodes"] = [{ id: "t", name: "start", key: "core.manual", config: {} }]): StoredGraph => ({ nodes, edges: [] });

export function automationRow(workspaceId: string, over: Partial<AutomationRow> = {}): AutomationRow {
  return {
    id: uid("aut"),
    workspaceId,
    name: "A",
    key: null,
    source: null,
    description: "",
    enabled: false,
    concurrency: 5,
    version: 1,
    graph: graphOf(),
    errorHandlerId: null,
    problems: null,
    createdBy: null,
    createdAt: iso(),
    updatedAt: iso(),
    ...over,
  };
}

export function intakeRow(workspaceId: string, over: Partial<IntakeRow> = {}): IntakeRow {
  return {
    id: uid("int"),
    workspaceId,
    kind: "trigger",
    name: "",
    key: null,
    source: null,
    token: uid("tok"),
    automationId: null,
    nodeId: null,
    connectionId: null,
    lineId: null,
    secretEnc: null,
    config: null,
    status: "active",
    statusMessage: null,
    lastEventAt: null,
    eventCount: 0,
    refusedCount: 0,
    lastRefused: null,
    createdAt: iso(),
    updatedAt: iso(),
    ...over,
  };
}

/** A step's or event's envelope with fixed type and time. */
export const envOf = (data: unknown) => ({ type: "x", timestamp: iso(0), data });

/** A queued manual run of `aut_1` whose first step is node "a": the run's and its event's ids and that step's job id. */
export async function queuedRun(t: TestStorage, workspaceId: string): Promise<{ runId: string; eventId: string; jobId: string }> {
  const made = (await t.store.runs.create({
    workspaceId,
    automationId: "aut_1",
    version: 1,
    triggerNodeId: "t",
    envelope: envOf(1),
    source: "manual",
    firstNodes: ["a"],
    at: new Date(),
  }))!;
  const [job] = await t.sql<{ id: string }>("select id from jobs where run_id = ?", made.runId);
  return { runId: made.runId, eventId: made.eventId, jobId: job!.id };
}
