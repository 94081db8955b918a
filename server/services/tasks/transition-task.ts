/**
 * Task transitions: `open` (draft → open, starts step 0), `close` (→ closed with outcome
 * completed | rejected), `retry` (a failed task re-opens at its failed step).
 */
import type { Store } from "@/db/store";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError } from "../../errors";
import { requireWorkspace } from "../access";
import { addTaskActivity } from "./task-activity";
import { startTaskStep } from "./run-task-step";
import { toOrder, type TaskRow } from "./to-order";

export async function getTaskRowOrThrow(s: Store, workspaceId: string, taskId: string): Promise<TaskRow> {
  const row = await s.tasks.get(taskId, workspaceId);
  if (!row) throw new AppError("not_found", `Task ${taskId} does not exist in this workspace.`);
  return row;
}

function conflict(row: TaskRow, action: string): never {
  const state = row.status === "closed" ? `closed (${row.outcome})` : row.status;
  throw new AppError("conflict", `Task ${row.id} is ${state}; it cannot be ${action}.`);
}

/** draft → open; starts step 0 when the line has steps. */
export async function openTaskRow(deps: AppDeps, s: Store, row: TaskRow, actorLabel: string): Promise<TaskRow> {
  if (row.status !== "draft") conflict(row, "opened");
  const line = await s.lines.get(row.workspaceId, row.lineId);
  const at = deps.now().toISOString();
  const hasSteps = (line?.steps.length ?? 0) > 0;
  const next = { ...row, status: "open" as const, currentStep: hasSteps ? 0 : null, updatedAt: at };
  await s.tasks.update(row.id, { status: next.status, currentStep: next.currentStep, updatedAt: at });
  await addTaskActivity(s, { taskId: row.id, kind: "opened", message: "Opened", actor: actorLabel, at });
  if (hasSteps) await startTaskStep(deps, s, row.id, 0);
  return (await s.tasks.get(row.id)) ?? next;
}

export async function closeTaskRow(
  deps: AppDeps,
  s: Store,
  row: TaskRow,
  outcome: "completed" | "rejected",
  actorLabel: string,
  comment?: string,
): Promise<TaskRow> {
  if (row.status === "closed") conflict(row, "closed");
  const now = deps.now();
  const at = now.toISOString();
  await s.tasks.update(row.id, { status: "closed", outcome, closedAt: at, updatedAt: at });
  if (comment) await addTaskActivity(s, { taskId: row.id, kind: "comment", message: comment, actor: actorLabel, at });
  await addTaskActivity(s, { taskId: row.id, kind: "closed", message: `Closed as ${outcome}`, actor: actorLabel, at, data: { outcome } });
  await s.usage.bump(row.workspaceId, "tasks.closed", 1, now);
  return { ...row, status: "closed", outcome, closedAt: at, updatedAt: at };
}

/** A task closed as `failed` re-opens at the step that failed, which runs again. */
export async function retryTaskRow(deps: AppDeps, s: Store, row: TaskRow, actorLabel: string): Promise<TaskRow> {
  if (row.status !== "closed" || row.outcome !== "failed") conflict(row, "retried (only failed tasks can be)");
  const step = row.currentStep ?? 0;
  const at = deps.now().toISOString();
  await s.tasks.update(row.id, { status: "open", outcome: null, closedAt: null, updatedAt: at });
  await addTaskActivity(s, { taskId: row.id, kind: "retried", message: `Retrying step ${step + 1}`, actor: actorLabel, at, stepIndex: step });
  await startTaskStep(deps, s, row.id, step);
  return (await s.tasks.get(row.id))!;
}

/**
 * A run of a task step is retried (run view or REST). When this run's failure closed its task as
 * `failed` at that step, the task re-opens there (returns true) and the retry's end advances it as the
 * first run's would have. A task that moved on, was closed otherwise or was retried as a task is left
 * alone (false): the retry is then a run of its own. Call inside the retry's transaction.
 */
export async function taskAwaitsRunRetry(s: Store, taskId: string, taskStep: number): Promise<boolean> {
  const task = await s.tasks.get(taskId);
  return !!task && task.status === "closed" && task.outcome === "failed" && task.currentStep === taskStep;
}

export async function reopenTaskForRunRetry(
  deps: Pick<AppDeps, "now">,
  s: Store,
  r: { taskId: string; taskStep: number; runId: string; actorLabel: string; version: number },
): Promise<void> {
  const at = deps.now().toISOString();
  await s.tasks.update(r.taskId, { status: "open", outcome: null, closedAt: null, updatedAt: at });
  await addTaskActivity(s, {
    taskId: r.taskId,
    kind: "retried",
    message: `Retrying step ${r.taskStep + 1} (run ${r.runId}, version ${r.version})`,
    actor: r.actorLabel,
    at,
    runId: r.runId,
    stepIndex: r.taskStep,
  });
}

export type TaskTransition = { action: "open" } | { action: "close"; outcome: "completed" | "rejected"; comment?: string } | { action: "retry" };

export async function transitionTask(deps: AppDeps, actor: Actor, workspaceId: string, taskId: string, t: TaskTransition) {
  await requireWorkspace(deps.store, actor, workspaceId, "task.write");
  const row = await deps.store.tx(async (s) => {
    const cur = await getTaskRowOrThrow(s, workspaceId, taskId);
    if (t.action === "open") return openTaskRow(deps, s, cur, actor.label);
    if (t.action === "close") return closeTaskRow(deps, s, cur, t.outcome, actor.label, t.comment);
    return retryTaskRow(deps, s, cur, actor.label);
  });
  return toOrder(row);
}
