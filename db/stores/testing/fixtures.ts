/** Rows for the store contract tests (db/stores/*.test.ts): a workspace, connections, automations, intakes. */
import { randomUUID } from "node:crypto";
import type { Store } from "../../store";
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
