/** Lines CRUD. Steps must name automations of the same workspace; deleting is refused while tasks are not closed. */
import type { Store } from "@/db/store";
import type { LineRow } from "@/db/types";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError, type FieldProblem } from "../../errors";
import { newId } from "../../ids";
import { requireWorkspace } from "../access";
import { recordAudit } from "../audit/record-audit";
import { decodeCursor, encodeCursor } from "../tasks/cursor";
import { chooseKey } from "../as-code/keys";

type StepInput = { name: string; appId: string };

async function toLine(s: Store, row: LineRow) {
  return {
    id: row.id,
    key: row.key ?? null,
    name: row.name,
    steps: row.steps,
    openTasks: await s.lines.openTaskCount(row.id),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

async function checkSteps(s: Store, workspaceId: string, steps: StepInput[]) {
  const found = await s.lines.existingAutomationIds(workspaceId, [...new Set(steps.map((st) => st.appId))]);
  const problems: FieldProblem[] = [];
  steps.forEach((st, i) => {
    if (!found.has(st.appId)) problems.push({ path: `steps.${i}.appId`, message: `Automation ${st.appId} does not exist in this workspace` });
  });
  if (problems.length) throw new AppError("validation_failed", "Every step must name an automation of this workspace.", problems);
}

async function getLineRow(s: Store, workspaceId: string, lineId: string): Promise<LineRow> {
  const row = await s.lines.get(workspaceId, lineId);
  if (!row) throw new AppError("not_found", `Line ${lineId} does not exist in this workspace.`);
  return row;
}

export async function listLines(deps: AppDeps, actor: Actor, workspaceId: string, q: { limit?: number; cursor?: string } = {}) {
  const { store } = deps;
  await requireWorkspace(store, actor, workspaceId, "line.read");
  const limit = Math.min(Math.max(q.limit ?? 50, 1), 200);
  const after = decodeCursor(deps.box, `lines:${workspaceId}`, q.cursor, { c: "string", i: "string" });
  const rows = await store.lines.list(workspaceId, { limit: limit + 1, after: after ? { createdAt: after.c, id: after.i } : null });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: await Promise.all(page.map((r) => toLine(store, r))),
    nextCursor: rows.length > limit && last ? encodeCursor(deps.box, `lines:${workspaceId}`, { c: last.createdAt, i: last.id }) : null,
  };
}

export async function getLine(deps: AppDeps, actor: Actor, workspaceId: string, lineId: string) {
  await requireWorkspace(deps.store, actor, workspaceId, "line.read");
  return toLine(deps.store, await getLineRow(deps.store, workspaceId, lineId));
}

export async function createLine(deps: AppDeps, actor: Actor, workspaceId: string, input: { name: string; key?: string; steps?: StepInput[] }) {
  const ws = await requireWorkspace(deps.store, actor, workspaceId, "line.write");
  return deps.store.tx(async (s) => {
    const key = await chooseKey(s, "line", workspaceId, input.name, input.key);
    return toLine(s, await insertLineTx(deps, s, actor, ws.organizationId, workspaceId, { ...input, key }));
  });
}

/** The writes of a create inside the caller's transaction (also used by `conveyor apply`). */
export async function insertLineTx(
  deps: AppDeps,
  s: Store,
  actor: Actor,
  organizationId: string,
  workspaceId: string,
  input: { id?: string; name: string; key: string; steps?: StepInput[] },
): Promise<LineRow> {
  const steps = (input.steps ?? []).map((st) => ({ name: st.name, appId: st.appId }));
  await checkSteps(s, workspaceId, steps);
  const at = deps.now().toISOString();
  const row: LineRow = { id: input.id ?? newId("lin"), workspaceId, key: input.key, name: input.name, steps, source: null, createdAt: at, updatedAt: at };
  await s.lines.insert(row);
  await recordAudit(s, { organizationId, workspaceId, actor: actor.label, action: "line.create", target: row.id });
  return row;
}

export async function updateLine(
  deps: AppDeps,
  actor: Actor,
  workspaceId: string,
  lineId: string,
  input: { name?: string; key?: string; steps?: StepInput[] },
) {
  const ws = await requireWorkspace(deps.store, actor, workspaceId, "line.write");
  return deps.store.tx(async (s) => {
    const row = await getLineRow(s, workspaceId, lineId);
    if (input.key && input.key !== row.key) await chooseKey(s, "line", workspaceId, row.name, input.key, lineId);
    return toLine(s, await updateLineTx(deps, s, actor, ws.organizationId, row, input));
  });
}

/** The writes of an update inside the caller's transaction. */
export async function updateLineTx(
  deps: AppDeps,
  s: Store,
  actor: Actor,
  organizationId: string,
  row: LineRow,
  input: { name?: string; key?: string; steps?: StepInput[] },
): Promise<LineRow> {
  const steps = input.steps ? input.steps.map((st) => ({ name: st.name, appId: st.appId })) : row.steps;
  if (input.steps) await checkSteps(s, row.workspaceId, steps);
  const next = { ...row, name: input.name ?? row.name, key: input.key ?? row.key, steps, updatedAt: deps.now().toISOString() };
  await s.lines.update(row.id, { name: next.name, key: next.key, steps: next.steps, updatedAt: next.updatedAt });
  await recordAudit(s, { organizationId, workspaceId: row.workspaceId, actor: actor.label, action: "line.update", target: row.id });
  return next;
}

/** Refused (409) while draft or open tasks are on the line; closed tasks are deleted with it. */
export async function deleteLine(deps: AppDeps, actor: Actor, workspaceId: string, lineId: string) {
  const ws = await requireWorkspace(deps.store, actor, workspaceId, "line.write");
  await deps.store.tx((s) => deleteLineTx(s, actor, ws.organizationId, workspaceId, lineId));
}

/** The writes of a delete inside the caller's transaction. */
export async function deleteLineTx(s: Store, actor: Actor, organizationId: string, workspaceId: string, lineId: string): Promise<void> {
  await getLineRow(s, workspaceId, lineId);
  const open = await s.lines.openTaskCount(lineId);
  if (open > 0) throw new AppError("conflict", `Line ${lineId} still has ${open} task(s) that are not closed; close or move them first.`);
  await s.lines.delete(lineId);
  await recordAudit(s, { organizationId, workspaceId, actor: actor.label, action: "line.delete", target: lineId });
}
