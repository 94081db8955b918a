/**
 * Run completion: succeeded once no job of the run is left, failed at the first permanent step
 * failure (remaining branches cancelled), cancelled by a user. State transitions only (no
 * third-party I/O), all inside the caller's transaction; then the follow-ups: usage counters,
 * the task on a line advancing, the error-handler automation.
 */
import type { Db } from "@/db/client";
import { getMetrics } from "../observability/metrics";
import { findTrigger } from "@/integrations/registry";
import { envelope } from "@/integrations/core/define";
import { onTaskRunFinished } from "../services/tasks/run-task-step";
import { createRunInTx } from "./create-run";
import { getVersionGraph } from "./graph-cache";
import { notifyWork } from "./signal";
import { loadRun, stepStatements, writeStep, type RunRow } from "./step-store";
import { countUsage } from "./usage";

export type FinalStatus = "succeeded" | "failed" | "cancelled";
export interface RunError {
  message: string;
  nodeId?: string;
  code?: string;
}

/** Marks the run succeeded when it has no job left (every branch ended). */
export function completeRunIfDone(tx: Db, run: RunRow, now: Date): boolean {
  const s = stepStatements(tx);
  if ((s.activeJobs.get(run.id) as { n: number }).n > 0) return false;
  return finishRun(tx, run, "succeeded", null, now);
}

/** Ends the run with `status`: remaining jobs removed, their steps cancelled. */
export function finishRun(tx: Db, run: RunRow, status: FinalStatus, error: RunError | null, now: Date): boolean {
  const s = stepStatements(tx);
  const iso = now.toISOString();
  if (status !== "succeeded") {
    recordUnstartedSteps(tx, run, iso);
    s.deleteRunJobs.run(run.id);
    s.cancelSteps.run(iso, run.id);
  }
  const changed = s.finishRun.run(status, error ? JSON.stringify(error) : null, iso, iso, run.id).changes > 0;
  if (!changed) return false;
  countUsage(run.workspaceId, `runs.${status}`, 1, now);
  if (changed) getMetrics().runsFinished.inc({ status });
  const started = Date.parse(run.startedAt ?? run.createdAt);
  if (Number.isFinite(started)) countUsage(run.workspaceId, "run_ms", Math.max(0, now.getTime() - started), now);
  if (run.taskId) onTaskRunFinished(tx, { runId: run.id, taskId: run.taskId, taskStep: run.taskStep ?? 0, status, error, now });
  if (status === "failed") startErrorHandler(tx, run, error, now);
  return true;
}

/** Steps that were queued but never ran get a `cancelled` row (so a retry can queue them again). */
function recordUnstartedSteps(tx: Db, run: RunRow, iso: string): void {
  const s = stepStatements(tx);
  const pending = s.runJobs.all(run.id) as Array<{ id: string; payload: string }>;
  if (!pending.length) return;
  const graph = getVersionGraph(tx, run.automationId, run.version);
  for (const j of pending) {
    if (s.step.get(j.id)) continue;
    const p = JSON.parse(j.payload) as { nodeId: string; parentStepId: string | null };
    const node = graph.byId.get(p.nodeId);
    writeStep(tx, {
      id: j.id, runId: run.id, nodeId: p.nodeId, name: node?.name ?? p.nodeId, key: node?.key ?? "unknown", parentStepId: p.parentStepId,
      status: "cancelled", input: null, output: null, state: null, attempts: [], logs: [], error: null, createdAt: iso, startedAt: null, finishedAt: iso,
    });
  }
}

export function failRunById(tx: Db, runId: string, error: RunError, now: Date): boolean {
  const run = loadRun(tx, runId);
  return run ? finishRun(tx, run, "failed", error, now) : false;
}

function startErrorHandler(tx: Db, run: RunRow, error: RunError | null, now: Date): void {
  const c = tx.$client;
  const a = c.prepare("select name, error_handler_id as h from automations where id = ?").get(run.automationId) as { name: string; h: string | null } | undefined;
  if (!a?.h || a.h === run.automationId) return;
  const src = c.prepare("select source from events where id = ?").get(run.eventId) as { source: string } | undefined;
  if (src?.source === "error_handler") return; // never chain handlers of handlers
  const handler = c.prepare("select id, workspace_id as ws, version from automations where id = ? and workspace_id = ?").get(a.h, run.workspaceId) as
    | { id: string; ws: string; version: number }
    | undefined;
  if (!handler) return;
  const graph = getVersionGraph(tx, handler.id, handler.version);
  const triggers = graph.graph.nodes.filter((n) => findTrigger(n.key));
  const trigger = triggers.find((n) => n.key === "core.manual") ?? triggers[0];
  if (!trigger) return;
  const failedNode = error?.nodeId ? getVersionGraph(tx, run.automationId, run.version).byId.get(error.nodeId) : undefined;
  createRunInTx(tx, {
    workspaceId: run.workspaceId,
    automationId: handler.id,
    version: handler.version,
    triggerNodeId: trigger.id,
    graph,
    source: "error_handler",
    envelope: envelope("core.error", {
      automationId: run.automationId,
      automationName: a.name,
      runId: run.id,
      failedNodeId: error?.nodeId ?? null,
      failedNodeName: failedNode?.name ?? null,
      error: error?.message ?? "failed",
    }, now),
    at: now,
  });
  queueMicrotask(notifyWork);
}
