/**
 * Retrying a failed or cancelled run, two ways (as n8n offers them):
 *
 * - `original` (the default, and the only way before): the same run continues on the version it
 *   started on. Its failed and cancelled steps are queued again (same step ids, their attempts
 *   continue), succeeded steps keep their outputs.
 * - `current`: a NEW run (`retryOf` → the failed run) on the automation's current saved version. The
 *   failed run's succeeded steps are reused where the node still exists with the same key (recorded as
 *   steps whose `origin` names the run, step and version they ran on); the failed step and everything
 *   after it run from the current graph. A new run keeps history honest: a run is pinned to one version
 *   and every step it ran, ran on that version; the failed run stays exactly as it failed, with a link
 *   to its retry. When the current version is the run's own, both ways are the same and the run
 *   continues (`original`).
 *
 * Either way the retry is another attempt of the same run, not a new run, for usage (`countRetry`); a
 * run is retried at most once as a new run (a retry of the retry continues the chain), a task that the
 * failure closed re-opens at its step (the retry's end advances it), and a retry that fails again
 * reaches the error handler again.
 */
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError, notFound } from "../../errors";
import { getVersionGraph } from "../../graphs";
import { countFinishedRun, countRetry } from "../../usage-counters";
import { requireWorkspace } from "../access";
import { loadAutomationRow } from "../automations/save-automation";
import { onTaskRunFinished } from "../tasks/run-task-step";
import { reopenTaskForRunRetry, taskAwaitsRunRetry } from "../tasks/transition-task";
import { triggerNameOf } from "./get-runs";
import { planRetryWithCurrent } from "./plans";
import { toRun } from "./to-run";

export type RetryVersion = "original" | "current";

export async function retryRun(deps: AppDeps, actor: Actor, workspaceId: string, runId: string, opts: { version?: RetryVersion } = {}) {
  const { store } = deps;
  await requireWorkspace(store, actor, workspaceId, "run.start");
  const run = await store.runs.get(runId, workspaceId);
  if (!run) throw notFound("Run", runId);
  if (run.mode === "test") throw new AppError("conflict", `Run ${runId} is a test run; start the test again instead.`);
  if (run.status !== "failed" && run.status !== "cancelled")
    throw new AppError("conflict", `Run ${runId} is ${run.status}; only failed or cancelled runs can be retried.`);
  const retriedBy = await store.runs.retriedBy(runId);
  if (retriedBy) throw new AppError("conflict", `Run ${runId} was already retried as run ${retriedBy}; retry that run instead.`);
  const head = await loadAutomationRow(store, workspaceId, run.automationId);
  const version = opts.version === "current" && head.version !== run.version ? "current" : "original";
  const at = deps.now();

  if (version === "original") {
    const queued = await store.tx(async (s) => {
      const n = await s.runs.requeue(runId, at);
      if (typeof n === "number" && n > 0 && run.taskId && (await taskAwaitsRunRetry(s, run.taskId, run.taskStep ?? 0))) {
        await reopenTaskForRunRetry(deps, s, { taskId: run.taskId, taskStep: run.taskStep ?? 0, runId, actorLabel: actor.label, version: run.version });
      }
      return n;
    });
    if (queued === "retried") throw new AppError("conflict", `Run ${runId} was already retried as a new run; retry that run instead.`);
    if (!queued) throw new AppError("conflict", `Run ${runId} has no failed step to retry from (or is no longer failed).`);
    countRetry(run, at);
    deps.queue.publish([runId], { again: true });
    return toRun((await store.runs.get(runId))!, await triggerNameOf(deps, run));
  }

  const errors = (head.problems ?? []).filter((p) => p.severity !== "warning");
  if (errors.length) {
    throw new AppError(
      "validation_failed",
      `Version ${head.version} is a draft with ${errors.length} problem${errors.length === 1 ? "" : "s"} (${errors[0]!.message}); fix ${errors.length === 1 ? "it" : "them"} and save, or retry with version ${run.version}.`,
      errors,
    );
  }
  const current = await getVersionGraph(store, head.id, head.version);
  if (!current.byId.has(run.triggerNodeId)) {
    throw new AppError(
      "unprocessable",
      `The trigger this run started from (${run.triggerNodeId}) is not in version ${head.version} (removed or disabled); retry with version ${run.version}, or start a new run.`,
    );
  }
  const plan = planRetryWithCurrent(run, await store.runs.steps(runId), current);
  const made = await store.tx(async (s) => {
    const carryTask = !!run.taskId && (await taskAwaitsRunRetry(s, run.taskId, run.taskStep ?? 0));
    const r = await s.runs.createDerived({
      workspaceId,
      automationId: run.automationId,
      version: head.version,
      triggerNodeId: run.triggerNodeId,
      event: { id: run.eventId },
      retryOf: runId,
      taskId: carryTask ? run.taskId : null,
      taskStep: carryTask ? run.taskStep : null,
      mode: "production",
      ...plan,
      at,
    });
    if ("runId" in r && carryTask)
      await reopenTaskForRunRetry(deps, s, {
        taskId: run.taskId!,
        taskStep: run.taskStep ?? 0,
        runId: r.runId,
        actorLabel: actor.label,
        version: head.version,
      });
    return r;
  });
  if ("refused" in made) {
    throw new AppError(
      "conflict",
      made.refused === "retried"
        ? `Run ${runId} was already retried as run ${made.retriedBy}; retry that run instead.`
        : `Run ${runId} is no longer failed or cancelled.`,
    );
  }
  countRetry(run, at);
  let row = (await store.runs.get(made.runId))!;
  if (made.finished) {
    // Nothing left to run (the failed node was removed): the run succeeded with the reused steps alone.
    countFinishedRun(row, "succeeded", at);
    if (row.taskId) {
      await onTaskRunFinished(deps, { runId: row.id, taskId: row.taskId, taskStep: row.taskStep ?? 0, status: "succeeded", error: null });
      await store.runs.clearFollowup(row.id);
      row = (await store.runs.get(made.runId))!;
    }
  } else deps.queue.publish([made.runId]);
  return toRun(row, current.byId.get(row.triggerNodeId)?.name ?? null);
}
