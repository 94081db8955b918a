/** Reading automations: one (404 when not visible), a page of them with their last run, versions, export. */
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { notFound } from "../../errors";
import { requireWorkspace } from "../access";
import { decodeCursor, encodeCursor } from "../tasks/cursor";
import { GraphSchema } from "../../contracts/graph";
import { maskGraphSecrets } from "./node-secrets";
import type { AutomationDocument, AutomationVersion } from "../../contracts/automations";
import { createAutomation, loadAutomationRow, replaceAutomation } from "./save-automation";
import { toAutomations } from "./to-automation";

export async function getAutomationOrThrow(deps: AppDeps, actor: Actor, workspaceId: string, automationId: string) {
  await requireWorkspace(deps.store, actor, workspaceId, "automation.read");
  return (await toAutomations(deps, deps.store, [await loadAutomationRow(deps.store, workspaceId, automationId)]))[0]!;
}

export async function listAutomations(
  deps: AppDeps,
  actor: Actor,
  workspaceId: string,
  q: { enabled?: boolean; search?: string; limit?: number; cursor?: string } = {},
) {
  const { store } = deps;
  await requireWorkspace(store, actor, workspaceId, "automation.read");
  const limit = Math.min(Math.max(q.limit ?? 50, 1), 200);
  const after = decodeCursor(deps.box, `apps:${workspaceId}`, q.cursor, { c: "string", i: "string" });
  const rows = await store.automations.list(workspaceId, {
    limit: limit + 1,
    enabled: q.enabled,
    search: q.search,
    before: after ? { createdAt: after.c, id: after.i } : null,
  });
  const page = rows.slice(0, limit);
  const data = [];
  for (const a of await toAutomations(deps, store, page)) data.push({ ...a, lastRun: (await store.automations.lastRun(a.id)) ?? null });
  const tail = page[page.length - 1];
  return { data, nextCursor: rows.length > limit && tail ? encodeCursor(deps.box, `apps:${workspaceId}`, { c: tail.createdAt, i: tail.id }) : null };
}

export async function listVersions(deps: AppDeps, actor: Actor, workspaceId: string, automationId: string): Promise<AutomationVersion[]> {
  await requireWorkspace(deps.store, actor, workspaceId, "automation.read");
  await loadAutomationRow(deps.store, workspaceId, automationId);
  return (await deps.store.automations.versions(automationId)).map((v) => ({
    version: v.version,
    name: v.name,
    description: v.description,
    graph: maskGraphSecrets(GraphSchema.parse(v.graph)),
    createdBy: v.createdBy ?? null,
    createdAt: v.createdAt,
  }));
}

export async function getVersion(deps: AppDeps, actor: Actor, workspaceId: string, automationId: string, version: number): Promise<AutomationVersion> {
  await requireWorkspace(deps.store, actor, workspaceId, "automation.read");
  await loadAutomationRow(deps.store, workspaceId, automationId);
  const v = await deps.store.automations.version(automationId, version);
  if (!v) throw notFound("Version", String(version));
  return {
    version: v.version,
    name: v.name,
    description: v.description,
    graph: maskGraphSecrets(GraphSchema.parse(v.graph)),
    createdBy: v.createdBy ?? null,
    createdAt: v.createdAt,
  };
}

/** Saves an earlier version's document as the newest version. */
export async function restoreVersion(deps: AppDeps, actor: Actor, workspaceId: string, automationId: string, version: number) {
  await getVersion(deps, actor, workspaceId, automationId, version); // access check + 404
  // The stored row, not the response: its sealed secrets are restored as they were in that version.
  const v = (await deps.store.automations.version(automationId, version))!;
  return replaceAutomation(deps, actor, workspaceId, automationId, { name: v.name, description: v.description, graph: GraphSchema.parse(v.graph) });
}

/** The automation document (round-trips through importAutomation / replaceAutomation unchanged). */
export async function exportAutomation(deps: AppDeps, actor: Actor, workspaceId: string, automationId: string): Promise<AutomationDocument> {
  const a = await getAutomationOrThrow(deps, actor, workspaceId, automationId);
  return { name: a.name, description: a.description, enabled: a.enabled, concurrency: a.concurrency, errorHandlerId: a.errorHandlerId, graph: a.graph };
}

export const importAutomation = createAutomation;
