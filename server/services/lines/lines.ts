/** Lines CRUD. Steps must name automations of the same workspace; deleting is refused while tasks are not closed. */
import { and, asc, count, eq, gt, inArray, ne, or, type SQL } from "drizzle-orm";
import { automations, lines, tasks } from "@/db/schema";
import { transaction, type Db } from "@/db/client";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError, type FieldProblem } from "../../errors";
import { newId } from "../../ids";
import { requireWorkspace } from "../access";
import { recordAudit } from "../audit/record-audit";
import { decodeCursor, encodeCursor } from "../tasks/cursor";
import { chooseKey } from "../as-code/keys";

export type LineRow = typeof lines.$inferSelect;
type StepInput = { name: string; appId: string };

function openTaskCount(db: Db, lineId: string): number {
  return db.select({ n: count() }).from(tasks).where(and(eq(tasks.lineId, lineId), ne(tasks.status, "closed"))).get()?.n ?? 0;
}

function toLine(db: Db, row: LineRow) {
  return { id: row.id, key: row.key ?? null, name: row.name, steps: row.steps, openTasks: openTaskCount(db, row.id), createdAt: row.createdAt, updatedAt: row.updatedAt };
}

function checkSteps(db: Db, workspaceId: string, steps: StepInput[]) {
  const ids = [...new Set(steps.map((s) => s.appId))];
  const found = ids.length
    ? new Set(db.select({ id: automations.id }).from(automations).where(and(eq(automations.workspaceId, workspaceId), inArray(automations.id, ids))).all().map((r) => r.id))
    : new Set<string>();
  const problems: FieldProblem[] = [];
  steps.forEach((s, i) => {
    if (!found.has(s.appId)) problems.push({ path: `steps.${i}.appId`, message: `Automation ${s.appId} does not exist in this workspace` });
  });
  if (problems.length) throw new AppError("validation_failed", "Every step must name an automation of this workspace.", problems);
}

function getLineRow(db: Db, workspaceId: string, lineId: string): LineRow {
  const row = db.select().from(lines).where(and(eq(lines.id, lineId), eq(lines.workspaceId, workspaceId))).get();
  if (!row) throw new AppError("not_found", `Line ${lineId} does not exist in this workspace.`);
  return row;
}

export async function listLines(deps: AppDeps, actor: Actor, workspaceId: string, q: { limit?: number; cursor?: string } = {}) {
  await requireWorkspace(deps.db, actor, workspaceId, "line.read");
  const limit = Math.min(Math.max(q.limit ?? 50, 1), 200);
  const after = decodeCursor(q.cursor, { c: "string", i: "string" });
  const conds: SQL[] = [eq(lines.workspaceId, workspaceId)];
  if (after) conds.push(or(gt(lines.createdAt, after.c), and(eq(lines.createdAt, after.c), gt(lines.id, after.i)))!);
  const rows = deps.db.select().from(lines).where(and(...conds)).orderBy(asc(lines.createdAt), asc(lines.id)).limit(limit + 1).all();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { data: page.map((r) => toLine(deps.db, r)), nextCursor: rows.length > limit && last ? encodeCursor({ c: last.createdAt, i: last.id }) : null };
}

export async function getLine(deps: AppDeps, actor: Actor, workspaceId: string, lineId: string) {
  await requireWorkspace(deps.db, actor, workspaceId, "line.read");
  return toLine(deps.db, getLineRow(deps.db, workspaceId, lineId));
}

export async function createLine(deps: AppDeps, actor: Actor, workspaceId: string, input: { name: string; key?: string; steps?: StepInput[] }) {
  const ws = await requireWorkspace(deps.db, actor, workspaceId, "line.write");
  return transaction(deps.db, (tx) => toLine(tx, insertLineTx(deps, tx, actor, ws.organizationId, workspaceId, { ...input, key: chooseKey(tx, "line", workspaceId, input.name, input.key) })));
}

/** The writes of a create inside the caller's transaction (also used by `conveyor apply`). */
export function insertLineTx(deps: AppDeps, tx: Db, actor: Actor, organizationId: string, workspaceId: string, input: { id?: string; name: string; key: string; steps?: StepInput[] }): LineRow {
  const steps = (input.steps ?? []).map((s) => ({ name: s.name, appId: s.appId }));
  checkSteps(tx, workspaceId, steps);
  const at = deps.now().toISOString();
  const row: LineRow = { id: input.id ?? newId("lin"), workspaceId, key: input.key, name: input.name, steps, source: null, createdAt: at, updatedAt: at };
  tx.insert(lines).values(row).run();
  recordAudit(tx, { organizationId, workspaceId, actor: actor.label, action: "line.create", target: row.id });
  return row;
}

export async function updateLine(deps: AppDeps, actor: Actor, workspaceId: string, lineId: string, input: { name?: string; key?: string; steps?: StepInput[] }) {
  const ws = await requireWorkspace(deps.db, actor, workspaceId, "line.write");
  return transaction(deps.db, (tx) => {
    const row = getLineRow(tx, workspaceId, lineId);
    if (input.key && input.key !== row.key) chooseKey(tx, "line", workspaceId, row.name, input.key, lineId);
    return toLine(tx, updateLineTx(deps, tx, actor, ws.organizationId, row, input));
  });
}

/** The writes of an update inside the caller's transaction. */
export function updateLineTx(deps: AppDeps, tx: Db, actor: Actor, organizationId: string, row: LineRow, input: { name?: string; key?: string; steps?: StepInput[] }): LineRow {
  const steps = input.steps ? input.steps.map((s) => ({ name: s.name, appId: s.appId })) : row.steps;
  if (input.steps) checkSteps(tx, row.workspaceId, steps);
  const next = { ...row, name: input.name ?? row.name, key: input.key ?? row.key, steps, updatedAt: deps.now().toISOString() };
  tx.update(lines).set({ name: next.name, key: next.key, steps: next.steps, updatedAt: next.updatedAt }).where(eq(lines.id, row.id)).run();
  recordAudit(tx, { organizationId, workspaceId: row.workspaceId, actor: actor.label, action: "line.update", target: row.id });
  return next;
}

/** Refused (409) while draft or open tasks are on the line; closed tasks are deleted with it. */
export async function deleteLine(deps: AppDeps, actor: Actor, workspaceId: string, lineId: string) {
  const ws = await requireWorkspace(deps.db, actor, workspaceId, "line.write");
  transaction(deps.db, (tx) => deleteLineTx(tx, actor, ws.organizationId, workspaceId, lineId));
}

/** The writes of a delete inside the caller's transaction. */
export function deleteLineTx(tx: Db, actor: Actor, organizationId: string, workspaceId: string, lineId: string): void {
  getLineRow(tx, workspaceId, lineId);
  const open = openTaskCount(tx, lineId);
  if (open > 0) throw new AppError("conflict", `Line ${lineId} still has ${open} task(s) that are not closed; close or move them first.`);
  tx.delete(tasks).where(eq(tasks.lineId, lineId)).run();
  tx.delete(lines).where(eq(lines.id, lineId)).run();
  recordAudit(tx, { organizationId, workspaceId, actor: actor.label, action: "line.delete", target: lineId });
}
