/** Cancelling a run (queued/running/waiting → cancelled; in-flight steps are aborted). Retrying: retry-run.ts. */
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError, notFound } from "../../errors";
import { getVersionGraph, nodeInfoOf, type IndexedGraph } from "../../graphs";
import { abortRunLocally } from "../../run-signals";
import { countFinishedRun } from "../../usage-counters";
import { onTaskRunFinished } from "../tasks/run-task-step";
import { requireWorkspace } from "../access";
import { toRun } from "./to-run";

export async function cancelRun(deps: AppDeps, actor: Actor, workspaceId: string, runId: string) {
  const { store } = deps;
  await requireWorkspace(store, actor, workspaceId, "run.cancel");
  const run = await store.runs.get(runId, workspaceId);
  if (!run) throw notFound("Run", runId);
  if (!["queued", "running", "waiting"].includes(run.status)) throw new AppError("conflict", `Run ${runId} is already ${run.status}.`);
  let graph: IndexedGraph | undefined;
  try {
    graph = await getVersionGraph(store, run.automationId, run.version);
  } catch {
    graph = undefined;
  }
  const now = deps.now();
  const finished = await store.runs.finish(runId, "cancelled", { message: `Cancelled by ${actor.label}`, code: "cancelled" }, now, nodeInfoOf(graph));
  if (!finished) {
    const cur = await store.runs.get(runId);
    throw new AppError("conflict", `Run ${runId} is already ${cur?.status ?? "gone"}.`);
  }
  countFinishedRun(finished.run, "cancelled", now);
  abortRunLocally(runId);
  if (run.taskId) {
    await onTaskRunFinished(deps, { runId, taskId: run.taskId, taskStep: run.taskStep ?? 0, status: "cancelled", error: finished.run.error ?? null });
    await store.runs.clearFollowup(runId);
  }
  return toRun((await store.runs.get(runId))!, graph?.byId.get(run.triggerNodeId)?.name ?? null);
}
