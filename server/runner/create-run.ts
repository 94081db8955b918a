/**
 * Creates a run inside the caller's transaction: the event (deduplicated by scope + key), the run
 * row (queued) and one queued job per node downstream of the trigger. The trigger "step" is the
 * event itself; no step row is written for it. Raw prepared statements: this is the ingest hot path.
 */
import type { Db } from "@/db/client";
import type { Envelope } from "@/integrations/core/define";
import { sortableId } from "./fast-id";
import { getVersionGraph, type IndexedGraph } from "./graph-cache";
import { insertStepJob } from "./queue";
import { countUsage } from "./usage";

export type EventSource = "webhook" | "manual" | "api" | "schedule" | "line" | "error_handler" | "replay";

export interface NewRun {
  workspaceId: string;
  automationId: string;
  version: number;
  triggerNodeId: string;
  envelope: Envelope;
  source: EventSource;
  intakeId?: string | null;
  dedupeScope?: string | null;
  dedupeKey?: string | null;
  /** Reuse an existing event (replay, retry) instead of inserting one. */
  eventId?: string;
  taskId?: string | null;
  taskStep?: number | null;
  retryOf?: string | null;
  graph?: IndexedGraph;
  at?: Date;
}

const stmtCache = new WeakMap<Db, ReturnType<typeof prepare>>();

function prepare(db: Db) {
  const c = db.$client;
  return {
    event: c.prepare(
      `insert into events (id, workspace_id, intake_id, automation_id, node_id, dedupe_scope, dedupe_key, type, envelope, source, received_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing`,
    ),
    succeed: c.prepare("update runs set status = 'succeeded', started_at = ?, finished_at = ?, updated_at = ? where id = ?"),
    run: c.prepare(
      `insert into runs (id, workspace_id, automation_id, version, status, trigger_node_id, event_id, task_id, task_step, retry_of, error, created_at, updated_at)
       values (?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, null, ?, ?)`,
    ),
  };
}

export function runStatements(db: Db) {
  let s = stmtCache.get(db);
  if (!s) {
    s = prepare(db);
    stmtCache.set(db, s);
  }
  return s;
}

/** Returns the run id, or null when the event is a duplicate (same scope + dedupe key). */
export function createRunInTx(tx: Db, r: NewRun): { runId: string; eventId: string } | null {
  const s = runStatements(tx);
  const at = r.at ?? new Date();
  const iso = at.toISOString();
  let eventId = r.eventId;
  if (!eventId) {
    eventId = sortableId("evt");
    const info = s.event.run(
      eventId, r.workspaceId, r.intakeId ?? null, r.automationId, r.triggerNodeId,
      r.dedupeKey ? r.dedupeScope ?? `automation:${r.automationId}` : null, r.dedupeKey ?? null,
      r.envelope.type, JSON.stringify(r.envelope), r.source, iso,
    );
    if (info.changes === 0) return null;
    countUsage(r.workspaceId, "events.received", 1, at);
  }
  const runId = sortableId("run");
  s.run.run(runId, r.workspaceId, r.automationId, r.version, r.triggerNodeId, eventId, r.taskId ?? null, r.taskStep ?? null, r.retryOf ?? null, iso, iso);
  const graph = r.graph ?? getVersionGraph(tx, r.automationId, r.version);
  const children = graph.children.get(r.triggerNodeId) ?? [];
  for (const child of children) {
    insertStepJob(tx, { runId, automationId: r.automationId, nodeId: child, parentStepId: null, at: at.getTime() });
  }
  if (children.length === 0) {
    s.succeed.run(iso, iso, iso, runId);
    countUsage(r.workspaceId, "runs.succeeded", 1, at);
  }
  return { runId, eventId };
}
