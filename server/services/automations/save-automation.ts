/**
 * Saving automations: create, replace (optionally conditional on the version), patch settings,
 * delete, duplicate. Every save of the document is a new version. Intakes are written in the save
 * transaction; upstream trigger setup/teardown runs after the commit.
 */
import { and, eq, inArray } from "drizzle-orm";
import { automations, automationVersions, intakes, jobs, lines, runs } from "@/db/schema";
import { transaction, type Db } from "@/db/client";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError, notFound } from "../../errors";
import { newId } from "../../ids";
import { requireWorkspace } from "../access";
import { recordAudit } from "../audit/record-audit";
import { AutomationDocumentSchema, AutomationPatchSchema, type Automation, type AutomationDocument, type AutomationPatch } from "../../contracts/automations";
import { GraphSchema, type Graph } from "../../contracts/graph";
import { applyTriggerLifecycle, syncIntakes } from "./trigger-lifecycle";
import { toAutomations, type AutomationRow } from "./to-automation";
import { validateAutomationDocument } from "./validate-automation";
import { sealGraphSecrets } from "./node-secrets";
import { chooseKey } from "../as-code/keys";

export async function assertValidDocument(deps: AppDeps, workspaceId: string, doc: unknown, selfId?: string) {
  const problems = await validateAutomationDocument(deps, workspaceId, doc, selfId);
  if (problems.length) {
    throw new AppError("validation_failed", `The automation has ${problems.length} problem${problems.length === 1 ? "" : "s"}: ${problems[0]!.message}${problems.length > 1 ? " (and more)" : ""}`, problems);
  }
  return AutomationDocumentSchema.parse(doc);
}

export function loadAutomationRow(db: Db, workspaceId: string, automationId: string): AutomationRow {
  const row = db.select().from(automations).where(and(eq(automations.id, automationId), eq(automations.workspaceId, workspaceId))).get();
  if (!row) throw notFound("Automation", automationId);
  return row;
}

function one(deps: AppDeps, row: AutomationRow, setupProblems: Array<{ nodeId: string; message: string }> = []): Automation & { setupProblems?: Array<{ nodeId: string; message: string }> } {
  const a = toAutomations(deps, deps.db, [row])[0]!;
  return setupProblems.length ? { ...a, setupProblems } : a;
}

function insertVersion(tx: Db, automationId: string, version: number, name: string, description: string, graph: Graph, actor: Actor, at: string) {
  tx.insert(automationVersions).values({ id: newId("ver"), automationId, version, name, description, graph, createdBy: actor.label, createdAt: at }).run();
}

type ValidDocument = Awaited<ReturnType<typeof assertValidDocument>>;

/** The writes of a create inside the caller's transaction (also used by `conveyor apply`); the graph is sealed here. */
export function insertAutomationTx(deps: AppDeps, tx: Db, actor: Actor, organizationId: string, row: AutomationRow): AutomationRow {
  const sealed: AutomationRow = { ...row, graph: sealGraphSecrets(deps.box, GraphSchema.parse(row.graph)) };
  tx.insert(automations).values(sealed).run();
  insertVersion(tx, sealed.id, sealed.version, sealed.name, sealed.description, GraphSchema.parse(sealed.graph), actor, sealed.createdAt);
  syncIntakes(deps, tx, { ...sealed, graph: GraphSchema.parse(sealed.graph) });
  recordAudit(tx, { organizationId, workspaceId: sealed.workspaceId, actor: actor.label, action: "automation.create", target: sealed.id });
  return sealed;
}

/** The writes of a replace (a new version) inside the caller's transaction; placeholders keep the stored secrets. */
export function updateAutomationTx(deps: AppDeps, tx: Db, actor: Actor, organizationId: string, cur: AutomationRow, d: ValidDocument, at: string): AutomationRow {
  const graph = sealGraphSecrets(deps.box, d.graph, GraphSchema.parse(cur.graph));
  const next: AutomationRow = {
    ...cur, name: d.name, key: d.key ?? cur.key, description: d.description ?? cur.description, enabled: d.enabled ?? cur.enabled, concurrency: d.concurrency ?? cur.concurrency,
    errorHandlerId: d.errorHandlerId === undefined ? cur.errorHandlerId : d.errorHandlerId, graph, version: cur.version + 1, updatedAt: at,
  };
  tx.update(automations).set(next).where(eq(automations.id, cur.id)).run();
  insertVersion(tx, cur.id, next.version, next.name, next.description, graph, actor, at);
  syncIntakes(deps, tx, { ...next, graph });
  recordAudit(tx, { organizationId, workspaceId: cur.workspaceId, actor: actor.label, action: "automation.update", target: cur.id, data: { version: next.version } });
  return next;
}

export async function createAutomation(deps: AppDeps, actor: Actor, workspaceId: string, doc: AutomationDocument | unknown) {
  const ws = await requireWorkspace(deps.db, actor, workspaceId, "automation.write");
  const d = await assertValidDocument(deps, workspaceId, doc);
  const at = deps.now().toISOString();
  const row = transaction(deps.db, (tx) =>
    insertAutomationTx(deps, tx, actor, ws.organizationId, {
      id: newId("aut"), workspaceId, key: chooseKey(tx, "automation", workspaceId, d.name, d.key), name: d.name, description: d.description ?? "", enabled: d.enabled ?? false,
      concurrency: d.concurrency ?? 5, version: 1, graph: d.graph, errorHandlerId: d.errorHandlerId ?? null, source: null, createdBy: actor.label, createdAt: at, updatedAt: at,
    }),
  );
  const problems = await applyTriggerLifecycle(deps, row, null, { enabled: row.enabled, graph: GraphSchema.parse(row.graph) });
  return one(deps, loadAutomationRow(deps.db, workspaceId, row.id), problems);
}

export async function replaceAutomation(deps: AppDeps, actor: Actor, workspaceId: string, automationId: string, doc: AutomationDocument | unknown, opts: { ifVersion?: number } = {}) {
  const ws = await requireWorkspace(deps.db, actor, workspaceId, "automation.write");
  const before = loadAutomationRow(deps.db, workspaceId, automationId);
  if (opts.ifVersion !== undefined && opts.ifVersion !== before.version) {
    throw new AppError("precondition_failed", `The automation is at version ${before.version}, not ${opts.ifVersion}; reload it and apply your change again.`);
  }
  const d = await assertValidDocument(deps, workspaceId, doc, automationId);
  const at = deps.now().toISOString();
  const after = transaction(deps.db, (tx) => {
    const cur = loadAutomationRow(tx, workspaceId, automationId);
    if (opts.ifVersion !== undefined && opts.ifVersion !== cur.version) throw new AppError("precondition_failed", `The automation changed meanwhile (now version ${cur.version}).`);
    if (d.key && d.key !== cur.key) chooseKey(tx, "automation", workspaceId, d.name, d.key, automationId);
    return updateAutomationTx(deps, tx, actor, ws.organizationId, cur, d, at);
  });
  const problems = await applyTriggerLifecycle(deps, after, { enabled: before.enabled, graph: GraphSchema.parse(before.graph) }, { enabled: after.enabled, graph: GraphSchema.parse(after.graph) });
  return one(deps, loadAutomationRow(deps.db, workspaceId, automationId), problems);
}

export async function patchAutomation(deps: AppDeps, actor: Actor, workspaceId: string, automationId: string, patch: AutomationPatch) {
  const ws = await requireWorkspace(deps.db, actor, workspaceId, "automation.write");
  const p = AutomationPatchSchema.safeParse(patch);
  if (!p.success) throw new AppError("validation_failed", "Invalid settings", p.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));
  const before = loadAutomationRow(deps.db, workspaceId, automationId);
  if (p.data.errorHandlerId) {
    if (p.data.errorHandlerId === automationId) throw new AppError("validation_failed", "An automation cannot be its own error handler", [{ path: "errorHandlerId", message: "Choose another automation" }]);
    loadAutomationRow(deps.db, workspaceId, p.data.errorHandlerId);
  }
  const at = deps.now().toISOString();
  const after = transaction(deps.db, (tx) => {
    const cur = loadAutomationRow(tx, workspaceId, automationId);
    if (p.data.key && p.data.key !== cur.key) chooseKey(tx, "automation", workspaceId, cur.name, p.data.key, automationId);
    const renamed = (p.data.name !== undefined && p.data.name !== cur.name) || (p.data.description !== undefined && p.data.description !== cur.description);
    const next: AutomationRow = { ...cur, ...Object.fromEntries(Object.entries(p.data).filter(([, v]) => v !== undefined)), updatedAt: at } as AutomationRow;
    if (renamed) {
      next.version = cur.version + 1;
      insertVersion(tx, automationId, next.version, next.name, next.description, GraphSchema.parse(cur.graph), actor, at);
    }
    tx.update(automations).set(next).where(eq(automations.id, automationId)).run();
    syncIntakes(deps, tx, { ...next, graph: GraphSchema.parse(next.graph) });
    recordAudit(tx, { organizationId: ws.organizationId, workspaceId, actor: actor.label, action: "automation.update", target: automationId, data: p.data as Record<string, unknown> });
    return next;
  });
  const graph = GraphSchema.parse(after.graph);
  const problems = await applyTriggerLifecycle(deps, after, { enabled: before.enabled, graph }, { enabled: after.enabled, graph });
  return one(deps, loadAutomationRow(deps.db, workspaceId, automationId), problems);
}

export async function deleteAutomation(deps: AppDeps, actor: Actor, workspaceId: string, automationId: string): Promise<void> {
  const ws = await requireWorkspace(deps.db, actor, workspaceId, "automation.delete");
  const before = loadAutomationRow(deps.db, workspaceId, automationId);
  transaction(deps.db, (tx) => deleteAutomationTx(tx, actor, ws.organizationId, workspaceId, automationId));
  await applyTriggerLifecycle(deps, before, { enabled: before.enabled, graph: GraphSchema.parse(before.graph) }, null);
}

/** The writes of a delete inside the caller's transaction (upstream teardown is the caller's, after the commit). */
export function deleteAutomationTx(tx: Db, actor: Actor, organizationId: string, workspaceId: string, automationId: string): void {
  // A line step naming this automation would fail every task reaching it: refuse instead.
  const usedBy = tx.select({ name: lines.name, steps: lines.steps }).from(lines).where(eq(lines.workspaceId, workspaceId)).all()
    .filter((l) => l.steps.some((s) => s.appId === automationId)).map((l) => `"${l.name}"`);
  if (usedBy.length) {
    throw new AppError("conflict", `Automation ${automationId} is a step of line ${usedBy.join(", ")}; remove it from the line first.`);
  }
  const runIds = tx.select({ id: runs.id }).from(runs).where(eq(runs.automationId, automationId)).all().map((r) => r.id);
  for (let i = 0; i < runIds.length; i += 500) tx.delete(jobs).where(inArray(jobs.runId, runIds.slice(i, i + 500))).run();
  tx.delete(runs).where(eq(runs.automationId, automationId)).run();
  tx.delete(intakes).where(eq(intakes.automationId, automationId)).run();
  tx.update(automations).set({ errorHandlerId: null }).where(eq(automations.errorHandlerId, automationId)).run();
  tx.delete(automations).where(eq(automations.id, automationId)).run();
  recordAudit(tx, { organizationId, workspaceId, actor: actor.label, action: "automation.delete", target: automationId });
}

export async function duplicateAutomation(deps: AppDeps, actor: Actor, workspaceId: string, automationId: string, opts: { name?: string } = {}) {
  await requireWorkspace(deps.db, actor, workspaceId, "automation.write");
  const src = loadAutomationRow(deps.db, workspaceId, automationId);
  return createAutomation(deps, actor, workspaceId, {
    name: opts.name ?? `${src.name} (copy)`, description: src.description, enabled: false, concurrency: src.concurrency, errorHandlerId: src.errorHandlerId, graph: src.graph,
  });
}
