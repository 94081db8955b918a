/** Reading automations: one (404 when not visible), a page of them with their last run, versions, export. */
import { and, desc, eq, like, lt, or, type SQL } from "drizzle-orm";
import { automations, automationVersions, runs } from "@/db/schema";
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
  await requireWorkspace(deps.db, actor, workspaceId, "automation.read");
  return toAutomations(deps, deps.db, [loadAutomationRow(deps.db, workspaceId, automationId)])[0]!;
}

export async function listAutomations(deps: AppDeps, actor: Actor, workspaceId: string, q: { enabled?: boolean; search?: string; limit?: number; cursor?: string } = {}) {
  await requireWorkspace(deps.db, actor, workspaceId, "automation.read");
  const limit = Math.min(Math.max(q.limit ?? 50, 1), 200);
  const after = decodeCursor(deps.box, q.cursor, { c: "string", i: "string" });
  const conds: SQL[] = [eq(automations.workspaceId, workspaceId)];
  if (q.enabled !== undefined) conds.push(eq(automations.enabled, q.enabled));
  if (q.search) conds.push(like(automations.name, `%${q.search.replace(/[%_]/g, (m) => "\\" + m)}%`));
  if (after) conds.push(or(lt(automations.createdAt, after.c), and(eq(automations.createdAt, after.c), lt(automations.id, after.i)))!);
  const rows = deps.db.select().from(automations).where(and(...conds)).orderBy(desc(automations.createdAt), desc(automations.id)).limit(limit + 1).all();
  const page = rows.slice(0, limit);
  const data = toAutomations(deps, deps.db, page).map((a) => {
    const last = deps.db.select({ id: runs.id, status: runs.status, createdAt: runs.createdAt }).from(runs).where(eq(runs.automationId, a.id)).orderBy(desc(runs.createdAt)).limit(1).get();
    return { ...a, lastRun: last ?? null };
  });
  const tail = page[page.length - 1];
  return { data, nextCursor: rows.length > limit && tail ? encodeCursor(deps.box, { c: tail.createdAt, i: tail.id }) : null };
}

export async function listVersions(deps: AppDeps, actor: Actor, workspaceId: string, automationId: string): Promise<AutomationVersion[]> {
  await requireWorkspace(deps.db, actor, workspaceId, "automation.read");
  loadAutomationRow(deps.db, workspaceId, automationId);
  return deps.db.select().from(automationVersions).where(eq(automationVersions.automationId, automationId)).orderBy(desc(automationVersions.version)).all()
    .map((v) => ({ version: v.version, name: v.name, description: v.description, graph: maskGraphSecrets(GraphSchema.parse(v.graph)), createdBy: v.createdBy ?? null, createdAt: v.createdAt }));
}

export async function getVersion(deps: AppDeps, actor: Actor, workspaceId: string, automationId: string, version: number): Promise<AutomationVersion> {
  await requireWorkspace(deps.db, actor, workspaceId, "automation.read");
  loadAutomationRow(deps.db, workspaceId, automationId);
  const v = deps.db.select().from(automationVersions).where(and(eq(automationVersions.automationId, automationId), eq(automationVersions.version, version))).get();
  if (!v) throw notFound("Version", String(version));
  return { version: v.version, name: v.name, description: v.description, graph: maskGraphSecrets(GraphSchema.parse(v.graph)), createdBy: v.createdBy ?? null, createdAt: v.createdAt };
}

/** Saves an earlier version's document as the newest version. */
export async function restoreVersion(deps: AppDeps, actor: Actor, workspaceId: string, automationId: string, version: number) {
  await getVersion(deps, actor, workspaceId, automationId, version); // access check + 404
  // The stored row, not the response: its sealed secrets are restored as they were in that version.
  const v = deps.db.select().from(automationVersions).where(and(eq(automationVersions.automationId, automationId), eq(automationVersions.version, version))).get()!;
  return replaceAutomation(deps, actor, workspaceId, automationId, { name: v.name, description: v.description, graph: GraphSchema.parse(v.graph) });
}

/** The automation document (round-trips through importAutomation / replaceAutomation unchanged). */
export async function exportAutomation(deps: AppDeps, actor: Actor, workspaceId: string, automationId: string): Promise<AutomationDocument> {
  const a = await getAutomationOrThrow(deps, actor, workspaceId, automationId);
  return { name: a.name, description: a.description, enabled: a.enabled, concurrency: a.concurrency, errorHandlerId: a.errorHandlerId, graph: a.graph };
}

export const importAutomation = createAutomation;
