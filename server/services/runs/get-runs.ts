/** Reading runs: a page (newest first) and one run with every step (inputs masked, outputs, attempts, logs). */
import { and, asc, desc, eq, lt, or, type SQL } from "drizzle-orm";
import { events, jobs, runSteps, runs } from "@/db/schema";
import { findUnit } from "@/integrations/registry";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { notFound } from "../../errors";
import { requireWorkspace } from "../access";
import { decodeCursor, encodeCursor } from "../tasks/cursor";
import { getVersionGraph } from "../../runner/graph-cache";
import type { RunDetail, RunStatus, RunStep } from "../../contracts/runs";
import { toRun } from "./to-run";

export async function listRuns(deps: AppDeps, actor: Actor, workspaceId: string, q: { automationId?: string; status?: RunStatus; taskId?: string; limit?: number; cursor?: string } = {}) {
  await requireWorkspace(deps.db, actor, workspaceId, "run.read");
  const limit = Math.min(Math.max(q.limit ?? 50, 1), 200);
  const after = decodeCursor(deps.box, q.cursor, { c: "string", i: "string" });
  const conds: SQL[] = [eq(runs.workspaceId, workspaceId)];
  if (q.automationId) conds.push(eq(runs.automationId, q.automationId));
  if (q.status) conds.push(eq(runs.status, q.status));
  if (q.taskId) conds.push(eq(runs.taskId, q.taskId));
  if (after) conds.push(or(lt(runs.createdAt, after.c), and(eq(runs.createdAt, after.c), lt(runs.id, after.i)))!);
  const rows = deps.db.select().from(runs).where(and(...conds)).orderBy(desc(runs.createdAt), desc(runs.id)).limit(limit + 1).all();
  const page = rows.slice(0, limit);
  const tail = page[page.length - 1];
  return { data: page.map((r) => toRun(r, triggerNameOf(deps, r))), nextCursor: rows.length > limit && tail ? encodeCursor(deps.box, { c: tail.createdAt, i: tail.id }) : null };
}

/** The trigger node's name in the run's version (cached graphs; null when the version is gone). */
function triggerNameOf(deps: AppDeps, r: { automationId: string; version: number; triggerNodeId: string }): string | null {
  try {
    return getVersionGraph(deps.db, r.automationId, r.version).byId.get(r.triggerNodeId)?.name ?? null;
  } catch {
    return null;
  }
}

export async function getRunOrThrow(deps: AppDeps, actor: Actor, workspaceId: string, runId: string): Promise<RunDetail> {
  await requireWorkspace(deps.db, actor, workspaceId, "run.read");
  const run = deps.db.select().from(runs).where(and(eq(runs.id, runId), eq(runs.workspaceId, workspaceId))).get();
  if (!run) throw notFound("Run", runId);
  const ev = deps.db.select({ envelope: events.envelope, receivedAt: events.receivedAt }).from(events).where(eq(events.id, run.eventId)).get();
  let graph: ReturnType<typeof getVersionGraph> | undefined;
  try {
    graph = getVersionGraph(deps.db, run.automationId, run.version);
  } catch {
    graph = undefined;
  }
  const triggerNode = graph?.byId.get(run.triggerNodeId);
  const steps: RunStep[] = [];
  if (ev) {
    steps.push({
      id: `${run.id}:trigger`, nodeId: run.triggerNodeId, name: triggerNode?.name ?? run.triggerNodeId, key: triggerNode?.key ?? "trigger", status: "succeeded",
      input: null, output: ev.envelope, attempts: [], logs: [], error: null, startedAt: ev.receivedAt, finishedAt: ev.receivedAt,
    });
  }
  const rows = deps.db.select().from(runSteps).where(eq(runSteps.runId, runId)).orderBy(asc(runSteps.createdAt), asc(runSteps.id)).all();
  const seen = new Set(rows.map((r) => r.id));
  for (const r of rows) {
    steps.push({
      id: r.id, nodeId: r.nodeId, name: r.name, key: r.key, status: r.status, input: r.input ?? null, output: (r.output as RunStep["output"]) ?? null,
      attempts: r.attempts, logs: r.logs, error: r.error ?? null, startedAt: r.startedAt ?? null, finishedAt: r.finishedAt ?? null,
    });
  }
  for (const j of deps.db.select().from(jobs).where(eq(jobs.runId, runId)).all()) {
    if (seen.has(j.id)) continue;
    const nodeId = (j.payload as { nodeId: string }).nodeId;
    const node = graph?.byId.get(nodeId);
    steps.push({
      id: j.id, nodeId, name: node?.name ?? nodeId, key: node?.key ?? (findUnit(nodeId) ? nodeId : "unknown"), status: j.status === "leased" ? "running" : "queued",
      input: null, output: null, attempts: [], logs: [], error: null, startedAt: null, finishedAt: null,
    });
  }
  return { ...toRun(run, triggerNode?.name ?? null), event: ev?.envelope ?? null, steps };
}
