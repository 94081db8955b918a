/**
 * Task transitions: `open` (draft → open, starts step 0), `close` (→ closed with outcome
 * completed | rejected), `retry` (a failed task re-opens at its failed step).
 */
import { and, eq } from "drizzle-orm";
import { lines, tasks } from "@/db/schema";
import { transaction, type Db } from "@/db/client";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError } from "../../errors";
import { requireWorkspace } from "../access";
import { bumpUsage } from "../usage/bump-usage";
import { addTaskActivity } from "./task-activity";
import { startTaskStep } from "./run-task-step";
import { toOrder, type TaskRow } from "./to-order";

export function getTaskRowOrThrow(tx: Db, workspaceId: string, taskId: string): TaskRow {
  const row = tx.select().from(tasks).where(and(eq(tasks.id, taskId), eq(tasks.workspaceId, workspaceId))).get();
  if (!row) throw new AppError("not_found", `Task ${taskId} does not exist in this workspace.`);
  return row;
}

function conflict(row: TaskRow, action: string): never {
  const state = row.status === "closed" ? `closed (${row.outcome})` : row.status;
  throw new AppError("conflict", `Task ${row.id} is ${state}; it cannot be ${action}.`);
}

/** draft → open; starts step 0 when the line has steps. */
export function openTaskRow(deps: AppDeps, tx: Db, row: TaskRow, actorLabel: string): TaskRow {
  if (row.status !== "draft") conflict(row, "opened");
  const line = tx.select().from(lines).where(eq(lines.id, row.lineId)).get();
  const at = deps.now().toISOString();
  const hasSteps = (line?.steps.length ?? 0) > 0;
  const next = { ...row, status: "open" as const, currentStep: hasSteps ? 0 : null, updatedAt: at };
  tx.update(tasks).set({ status: next.status, currentStep: next.currentStep, updatedAt: at }).where(eq(tasks.id, row.id)).run();
  addTaskActivity(tx, { taskId: row.id, kind: "opened", message: "Opened", actor: actorLabel, at });
  if (hasSteps) startTaskStep(deps, tx, row.id, 0);
  return tx.select().from(tasks).where(eq(tasks.id, row.id)).get() ?? next;
}

export function closeTaskRow(deps: AppDeps, tx: Db, row: TaskRow, outcome: "completed" | "rejected", actorLabel: string, comment?: string): TaskRow {
  if (row.status === "closed") conflict(row, "closed");
  const now = deps.now();
  const at = now.toISOString();
  tx.update(tasks).set({ status: "closed", outcome, closedAt: at, updatedAt: at }).where(eq(tasks.id, row.id)).run();
  if (comment) addTaskActivity(tx, { taskId: row.id, kind: "comment", message: comment, actor: actorLabel, at });
  addTaskActivity(tx, { taskId: row.id, kind: "closed", message: `Closed as ${outcome}`, actor: actorLabel, at, data: { outcome } });
  bumpUsage(tx, row.workspaceId, "tasks.closed", 1, now);
  return { ...row, status: "closed", outcome, closedAt: at, updatedAt: at };
}

/** A task closed as `failed` re-opens at the step that failed, which runs again. */
export function retryTaskRow(deps: AppDeps, tx: Db, row: TaskRow, actorLabel: string): TaskRow {
  if (row.status !== "closed" || row.outcome !== "failed") conflict(row, "retried (only failed tasks can be)");
  const step = row.currentStep ?? 0;
  const at = deps.now().toISOString();
  tx.update(tasks).set({ status: "open", outcome: null, closedAt: null, updatedAt: at }).where(eq(tasks.id, row.id)).run();
  addTaskActivity(tx, { taskId: row.id, kind: "retried", message: `Retrying step ${step + 1}`, actor: actorLabel, at, stepIndex: step });
  startTaskStep(deps, tx, row.id, step);
  return tx.select().from(tasks).where(eq(tasks.id, row.id)).get()!;
}

export type TaskTransition = { action: "open" } | { action: "close"; outcome: "completed" | "rejected"; comment?: string } | { action: "retry" };

export async function transitionTask(deps: AppDeps, actor: Actor, workspaceId: string, taskId: string, t: TaskTransition) {
  await requireWorkspace(deps.db, actor, workspaceId, "task.write");
  const row = transaction(deps.db, (tx) => {
    const cur = getTaskRowOrThrow(tx, workspaceId, taskId);
    if (t.action === "open") return openTaskRow(deps, tx, cur, actor.label);
    if (t.action === "close") return closeTaskRow(deps, tx, cur, t.outcome, actor.label, t.comment);
    return retryTaskRow(deps, tx, cur, actor.label);
  });
  return toOrder(row);
}
