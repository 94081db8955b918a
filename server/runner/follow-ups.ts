/**
 * Follow-ups of a finished run, done after its commit: the task on a line advances (through the
 * `taskRunFinished` hook), and a failed run starts its automation's error-handler automation with the
 * failure summary as its trigger event (never for a handler's own runs, nor for test runs). The run row carries
 * `followupAt` until both are done; both are idempotent (the task checks its current step, the
 * handler run is deduplicated by the failed run's id), so a crash in between only repeats them: the
 * maintenance pass picks up what a dead process left.
 */
import type { Store } from "@/db/store";
import type { RunRecord } from "@/db/types";
import { envelope } from "@/integrations/core/define";
import { findTrigger } from "@/integrations/registry";
import { getVersionGraph } from "../graphs";
import type { RunnerHooks } from "./hooks";

export async function runFollowups(store: Store, hooks: RunnerHooks, runId: string, now: Date): Promise<{ handlerRunId?: string }> {
  const run = await store.runs.get(runId);
  if (!run?.followupAt) return {};
  const status = run.status as "succeeded" | "failed" | "cancelled";
  if (run.taskId) await hooks.taskRunFinished({ runId: run.id, taskId: run.taskId, taskStep: run.taskStep ?? 0, status, error: run.error ?? null });
  // A test run (editor "run step" / "run from here") reaches nobody: no error handler (and it has no task).
  const handlerRunId = status === "failed" && run.mode !== "test" ? await startErrorHandler(store, run, now) : undefined;
  await store.runs.clearFollowup(run.id);
  return { handlerRunId };
}

async function startErrorHandler(store: Store, run: RunRecord, now: Date): Promise<string | undefined> {
  const a = await store.versions.head(run.automationId);
  if (!a?.errorHandlerId || a.errorHandlerId === run.automationId) return undefined;
  const ev = await store.runs.event(run.eventId);
  if (ev?.source === "error_handler") return undefined; // never chain handlers of handlers
  const handler = await store.versions.head(a.errorHandlerId, run.workspaceId);
  if (!handler) return undefined;
  const graph = await getVersionGraph(store, handler.id, handler.version);
  const triggers = graph.graph.nodes.filter((n) => findTrigger(n.key));
  const trigger = triggers.find((n) => n.key === "core.manual") ?? triggers[0];
  if (!trigger) return undefined;
  let failedNodeName: string | null = null;
  if (run.error?.nodeId) {
    try {
      failedNodeName = (await getVersionGraph(store, run.automationId, run.version)).byId.get(run.error.nodeId)?.name ?? null;
    } catch {
      failedNodeName = null;
    }
  }
  const created = await store.runs.create({
    workspaceId: run.workspaceId,
    automationId: handler.id,
    version: handler.version,
    triggerNodeId: trigger.id,
    firstNodes: graph.children.get(trigger.id) ?? [],
    source: "error_handler",
    dedupeScope: `error_handler:${handler.id}`,
    // Once per failure: a run retried (same run, `requeue`) that fails again reaches the handler again.
    dedupeKey: run.finishedAt ? `${run.id}@${run.finishedAt}` : run.id,
    envelope: envelope(
      "core.error",
      {
        automationId: run.automationId,
        automationName: a.name,
        runId: run.id,
        failedNodeId: run.error?.nodeId ?? null,
        failedNodeName,
        error: run.error?.message ?? "failed",
      },
      now,
    ),
    at: now,
  });
  return created?.runId;
}
