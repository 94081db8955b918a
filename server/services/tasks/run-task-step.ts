/**
 * Lines and tasks execution: a task placed on a line runs each step's automation in turn, with the
 * task as the trigger event (`{type: "core.task", data: task}`); a succeeded run advances the task
 * (next step, or closed/completed after the last one); a failed or cancelled run closes it as
 * `failed` (retryable from that step). Every transition is recorded in the task's activity.
 */
import type { Store } from "@/db/store";
import type { TaskRow } from "@/db/types";
import { envelope } from "@/integrations/core/define";
import { findTrigger } from "@/integrations/registry";
import type { AppDeps } from "../../deps";
import { getVersionGraph } from "../../graphs";
import { countCreatedRun, countUsage } from "../../usage-counters";
import { addTaskActivity } from "./task-activity";

async function closeFailed(s: Store, task: TaskRow, stepIndex: number, message: string, at: string, runId?: string) {
  await s.tasks.update(task.id, { status: "closed", outcome: "failed", currentStep: stepIndex, closedAt: at, updatedAt: at });
  await addTaskActivity(s, {
    taskId: task.id,
    kind: "closed",
    message: `Failed at step ${stepIndex + 1}: ${message}`,
    at,
    runId,
    stepIndex,
    actor: "runner",
    data: { outcome: "failed" },
  });
  countUsage(task.workspaceId, "tasks.closed", 1, new Date(at));
}

/**
 * Starts the run of step `stepIndex` of the task's line, in `s`'s transaction; the run is published
 * for runners once it commits. Returns the run id, or null when the step could not start.
 */
export async function startTaskStep(
  deps: Pick<AppDeps, "queue" | "now">,
  s: Store,
  taskId: string,
  stepIndex: number,
  now = deps.now(),
): Promise<string | null> {
  const at = now.toISOString();
  const task = await s.tasks.get(taskId);
  if (!task) return null;
  const line = await s.lines.get(task.workspaceId, task.lineId);
  const step = line?.steps[stepIndex];
  if (!step) return null;
  const automation = await s.versions.head(step.appId, task.workspaceId);
  if (!automation) {
    await closeFailed(s, task, stepIndex, `automation ${step.appId} of step "${step.name}" no longer exists`, at);
    return null;
  }
  const graph = await getVersionGraph(s, automation.id, automation.version);
  const triggers = graph.graph.nodes.filter((n) => findTrigger(n.key));
  const trigger = triggers.find((n) => n.key === "core.manual") ?? triggers[0];
  if (!trigger) {
    await closeFailed(s, task, stepIndex, `automation of step "${step.name}" has no trigger`, at);
    return null;
  }
  const data = {
    id: task.id,
    title: task.title,
    description: task.description,
    data: task.data ?? null,
    lineId: task.lineId,
    step: stepIndex,
    stepName: step.name,
  };
  const created = (await s.runs.create({
    workspaceId: task.workspaceId,
    automationId: automation.id,
    version: automation.version,
    triggerNodeId: trigger.id,
    firstNodes: graph.children.get(trigger.id) ?? [],
    envelope: envelope("core.task", data, now),
    source: "line",
    taskId: task.id,
    taskStep: stepIndex,
    at: now,
  }))!;
  countCreatedRun(task.workspaceId, created, { newEvent: true, at: now });
  await s.tasks.update(task.id, { currentStep: stepIndex, updatedAt: at });
  await addTaskActivity(s, {
    taskId: task.id,
    kind: "step_started",
    message: `Step ${stepIndex + 1} "${step.name}" started`,
    at,
    runId: created.runId,
    stepIndex,
    actor: "runner",
  });
  if (created.finished) {
    // A trigger with no downstream node finishes its run at once: advance now.
    await advanceTask(deps, s, { runId: created.runId, taskId, taskStep: stepIndex, status: "succeeded", error: null, now });
    await s.runs.clearFollowup(created.runId);
  } else s.onCommit(() => deps.queue.publish([created.runId]));
  return created.runId;
}

type Finished = { runId: string; taskId: string; taskStep: number; status: "succeeded" | "failed" | "cancelled"; error: { message: string } | null; now: Date };

async function advanceTask(deps: Pick<AppDeps, "queue" | "now">, s: Store, r: Finished): Promise<void> {
  const task = await s.tasks.get(r.taskId);
  if (!task || task.status !== "open" || task.currentStep !== r.taskStep) return; // task moved on (closed by hand, retried, or already advanced)
  const at = r.now.toISOString();
  await addTaskActivity(s, {
    taskId: task.id,
    kind: "step_finished",
    message: `Step ${r.taskStep + 1} ${r.status}`,
    at,
    runId: r.runId,
    stepIndex: r.taskStep,
    actor: "runner",
    data: { status: r.status },
  });
  if (r.status !== "succeeded") return closeFailed(s, task, r.taskStep, r.error?.message ?? r.status, at, r.runId);
  const line = await s.lines.get(task.workspaceId, task.lineId);
  if (r.taskStep + 1 < (line?.steps.length ?? 0)) {
    await startTaskStep(deps, s, task.id, r.taskStep + 1, r.now);
    return;
  }
  await s.tasks.update(task.id, { status: "closed", outcome: "completed", closedAt: at, updatedAt: at });
  await addTaskActivity(s, { taskId: task.id, kind: "closed", message: "Completed", at, actor: "runner", data: { outcome: "completed" } });
  countUsage(task.workspaceId, "tasks.closed", 1, r.now);
}

/** The runner's hook when a run of a task step ends (idempotent: a task that moved on is left alone). */
export async function onTaskRunFinished(deps: AppDeps, r: Omit<Finished, "now">): Promise<void> {
  await deps.store.tx((s) => advanceTask(deps, s, { ...r, now: deps.now() }));
}
