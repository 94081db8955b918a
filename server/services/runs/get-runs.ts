/** Reading runs: a page (newest first) and one run with every step (inputs masked, outputs, attempts, logs). */
import { findUnit } from "@/integrations/registry";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { notFound } from "../../errors";
import { getVersionGraph, type IndexedGraph } from "../../graphs";
import { requireWorkspace } from "../access";
import { decodeCursor, encodeCursor } from "../tasks/cursor";
import type { RunDetail, RunStatus, RunStep } from "../../contracts/runs";
import { toRun } from "./to-run";
import { runTiming } from "./timing";

/** Which list a runs cursor pages: the automation and task narrow it; a status or mode filter may change between pages. */
export function runsCursorScope(workspaceId: string, automationId?: string, taskId?: string): string {
  return `runs:${workspaceId}:${automationId ?? ""}:${taskId ?? ""}`;
}

export async function listRuns(
  deps: AppDeps,
  actor: Actor,
  workspaceId: string,
  q: { automationId?: string; status?: RunStatus; taskId?: string; mode?: "production" | "test"; limit?: number; cursor?: string } = {},
) {
  await requireWorkspace(deps.store, actor, workspaceId, "run.read");
  const limit = Math.min(Math.max(q.limit ?? 50, 1), 200);
  const scope = runsCursorScope(workspaceId, q.automationId, q.taskId);
  const after = decodeCursor(deps.box, scope, q.cursor, { c: "string", i: "string" });
  const rows = await deps.store.runs.list(
    workspaceId,
    { automationId: q.automationId, status: q.status, taskId: q.taskId, mode: q.mode },
    { limit: limit + 1, before: after ? { createdAt: after.c, id: after.i } : null },
  );
  const page = rows.slice(0, limit);
  const tail = page[page.length - 1];
  const [names, timings] = await Promise.all([Promise.all(page.map((r) => triggerNameOf(deps, r))), deps.store.runs.stepTimings(page.map((r) => r.id))]);
  const byRun = new Map<string, typeof timings>();
  for (const t of timings) byRun.set(t.runId, [...(byRun.get(t.runId) ?? []), t]);
  return {
    data: page.map((r, i) => ({ ...toRun(r, names[i]!), workMs: runTiming(byRun.get(r.id) ?? []).workMs })),
    nextCursor: rows.length > limit && tail ? encodeCursor(deps.box, scope, { c: tail.createdAt, i: tail.id }) : null,
  };
}

/** The trigger node's name in the run's version (cached graphs; null when the version is gone). */
export async function triggerNameOf(deps: AppDeps, r: { automationId: string; version: number; triggerNodeId: string }): Promise<string | null> {
  try {
    return (await getVersionGraph(deps.store, r.automationId, r.version)).byId.get(r.triggerNodeId)?.name ?? null;
  } catch {
    return null;
  }
}

export async function getRunOrThrow(deps: AppDeps, actor: Actor, workspaceId: string, runId: string): Promise<RunDetail> {
  const { store } = deps;
  await requireWorkspace(store, actor, workspaceId, "run.read");
  const run = await store.runs.get(runId, workspaceId);
  if (!run) throw notFound("Run", runId);
  const [ev, rows, pending, retriedBy, retried] = await Promise.all([
    store.runs.event(run.eventId),
    store.runs.steps(runId),
    store.runs.pendingJobs(runId),
    store.runs.retriedBy(runId),
    run.retryOf ? store.runs.get(run.retryOf) : Promise.resolve(undefined),
  ]);
  let graph: IndexedGraph | undefined;
  try {
    graph = await getVersionGraph(store, run.automationId, run.version);
  } catch {
    graph = undefined;
  }
  const triggerNode = graph?.byId.get(run.triggerNodeId);
  const steps: RunStep[] = [];
  if (ev) {
    steps.push({
      id: `${run.id}:trigger`,
      nodeId: run.triggerNodeId,
      name: triggerNode?.name ?? run.triggerNodeId,
      key: triggerNode?.key ?? "trigger",
      status: "succeeded",
      input: null,
      output: ev.envelope,
      attempts: [],
      logs: [],
      error: null,
      startedAt: ev.receivedAt,
      finishedAt: ev.receivedAt,
    });
  }
  const seen = new Set(rows.map((r) => r.id));
  for (const r of rows) {
    steps.push({
      id: r.id,
      nodeId: r.nodeId,
      name: r.name,
      key: r.key,
      status: r.status,
      input: r.input ?? null,
      output: (r.output as RunStep["output"]) ?? null,
      attempts: r.attempts,
      logs: r.logs,
      error: r.error ?? null,
      startedAt: r.startedAt ?? null,
      finishedAt: r.finishedAt ?? null,
      origin: r.origin ?? null,
    });
  }
  for (const j of pending) {
    if (seen.has(j.id)) continue;
    const nodeId = (j.payload as { nodeId: string }).nodeId;
    const node = graph?.byId.get(nodeId);
    steps.push({
      id: j.id,
      nodeId,
      name: node?.name ?? nodeId,
      key: node?.key ?? (findUnit(nodeId) ? nodeId : "unknown"),
      status: j.status === "leased" ? "running" : "queued",
      input: null,
      output: null,
      attempts: [],
      logs: [],
      error: null,
      startedAt: null,
      finishedAt: null,
    });
  }
  const timing = runTiming(rows);
  // A retry with the current version was started by a person: the time since the retried run ended is
  // the wait until they retried it, not an automatic retry's backoff.
  if (retried?.finishedAt) timing.manualRetryDelayMs += Math.max(0, Date.parse(run.createdAt) - Date.parse(retried.finishedAt));
  return { ...toRun(run, triggerNode?.name ?? null), event: ev?.envelope ?? null, steps, retriedBy: retriedBy ?? null, timing };
}
