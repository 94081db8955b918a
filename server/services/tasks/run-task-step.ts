/**
 * Lines and tasks execution: a task placed on a line runs each step's automation in turn, with the
 * task as the trigger event (`{type: "core.task", data: task}`); a succeeded run advances the task
 * (next step, or closed/completed after the last one); a failed or cancelled run closes it as
 * `failed` (retryable from that step). Every transition is recorded in the task's activity.
 */
import { prepared } from "@/db/prepared";
import type { Db } from "@/db/client";
import { envelope } from "@/integrations/core/define";
import { findTrigger } from "@/integrations/registry";
import type { AppDeps } from "../../deps";
import { createRunInTx } from "../../runner/create-run";
import { getVersionGraph } from "../../runner/graph-cache";
import { notifyWork } from "../../runner/signal";
import { countUsage } from "../../runner/usage";
import { addTaskActivity } from "./task-activity";

type TaskRowRaw = { id: string; workspace_id: string; line_id: string; title: string; description: string; data: string | null; status: string; current_step: number | null; created_at: string };

function loadTask(tx: Db, taskId: string): TaskRowRaw | undefined {
  return prepared(tx, "select * from tasks where id = ?").get(taskId) as TaskRowRaw | undefined;
}

function closeFailed(tx: Db, task: TaskRowRaw, stepIndex: number, message: string, at: string, runId?: string) {
  prepared(tx, "update tasks set status = 'closed', outcome = 'failed', current_step = ?, closed_at = ?, updated_at = ? where id = ?").run(stepIndex, at, at, task.id);
  addTaskActivity(tx, { taskId: task.id, kind: "closed", message: `Failed at step ${stepIndex + 1}: ${message}`, at, runId, stepIndex, actor: "runner", data: { outcome: "failed" } });
  countUsage(task.workspace_id, "tasks.closed", 1, new Date(at));
}

/** Starts the run of step `stepIndex` of the task's line (inside `tx`). Returns the run id, or null when the step could not start. */
export function startTaskStep(deps: Pick<AppDeps, "now">, tx: Db, taskId: string, stepIndex: number): string | null {
  return startTaskStepAt(tx, taskId, stepIndex, deps.now());
}

export function startTaskStepAt(tx: Db, taskId: string, stepIndex: number, now: Date): string | null {
  const at = now.toISOString();
  const task = loadTask(tx, taskId);
  if (!task) return null;
  const line = prepared(tx, "select steps from lines where id = ?").get(task.line_id) as { steps: string } | undefined;
  const steps = line ? (JSON.parse(line.steps) as Array<{ name: string; appId: string }>) : [];
  const step = steps[stepIndex];
  if (!step) return null;
  const automation = prepared(tx, "select id, version from automations where id = ? and workspace_id = ?").get(step.appId, task.workspace_id) as
    | { id: string; version: number }
    | undefined;
  if (!automation) {
    closeFailed(tx, task, stepIndex, `automation ${step.appId} of step "${step.name}" no longer exists`, at);
    return null;
  }
  const graph = getVersionGraph(tx, automation.id, automation.version);
  const triggers = graph.graph.nodes.filter((n) => findTrigger(n.key));
  const trigger = triggers.find((n) => n.key === "core.manual") ?? triggers[0];
  if (!trigger) {
    closeFailed(tx, task, stepIndex, `automation of step "${step.name}" has no trigger`, at);
    return null;
  }
  const data = { id: task.id, title: task.title, description: task.description, data: task.data ? JSON.parse(task.data) : null, lineId: task.line_id, step: stepIndex, stepName: step.name };
  const created = createRunInTx(tx, {
    workspaceId: task.workspace_id,
    automationId: automation.id,
    version: automation.version,
    triggerNodeId: trigger.id,
    graph,
    envelope: envelope("core.task", data, now),
    source: "line",
    taskId: task.id,
    taskStep: stepIndex,
    at: now,
  })!;
  prepared(tx, "update tasks set current_step = ?, updated_at = ? where id = ?").run(stepIndex, at, task.id);
  addTaskActivity(tx, { taskId: task.id, kind: "step_started", message: `Step ${stepIndex + 1} "${step.name}" started`, at, runId: created.runId, stepIndex, actor: "runner" });
  queueMicrotask(notifyWork);
  // A trigger with no downstream node finishes its run at once: advance now.
  const st = prepared(tx, "select status from runs where id = ?").get(created.runId) as { status: string };
  if (st.status === "succeeded") onTaskRunFinished(tx, { runId: created.runId, taskId, taskStep: stepIndex, status: "succeeded", error: null, now });
  return created.runId;
}

/** Called by the runner when a run of a task step ends (inside its transaction). */
export function onTaskRunFinished(
  tx: Db,
  r: { runId: string; taskId: string; taskStep: number; status: "succeeded" | "failed" | "cancelled"; error: { message: string } | null; now: Date },
): void {
  const task = loadTask(tx, r.taskId);
  if (!task || task.status !== "open" || task.current_step !== r.taskStep) return; // task moved on (closed by hand, retried)
  const at = r.now.toISOString();
  addTaskActivity(tx, { taskId: task.id, kind: "step_finished", message: `Step ${r.taskStep + 1} ${r.status}`, at, runId: r.runId, stepIndex: r.taskStep, actor: "runner", data: { status: r.status } });
  if (r.status !== "succeeded") {
    closeFailed(tx, task, r.taskStep, r.error?.message ?? r.status, at, r.runId);
    return;
  }
  const line = prepared(tx, "select steps from lines where id = ?").get(task.line_id) as { steps: string } | undefined;
  const count = line ? (JSON.parse(line.steps) as unknown[]).length : 0;
  if (r.taskStep + 1 < count) {
    startTaskStepAt(tx, task.id, r.taskStep + 1, r.now);
    return;
  }
  prepared(tx, "update tasks set status = 'closed', outcome = 'completed', closed_at = ?, updated_at = ? where id = ?").run(at, at, task.id);
  addTaskActivity(tx, { taskId: task.id, kind: "closed", message: "Completed", at, actor: "runner", data: { outcome: "completed" } });
  countUsage(task.workspace_id, "tasks.closed", 1, r.now);
}
