/** Reads and writes of step rows and run state for the executor (prepared statements; hot path). */
import type { Db } from "@/db/client";
import type { Envelope } from "@/integrations/core/define";
import type { StepAttempt } from "@/db/schema";

export interface StepLog {
  at: string;
  level: string;
  message: string;
  fields?: unknown;
}

export interface StepRowWrite {
  id: string;
  runId: string;
  nodeId: string;
  name: string;
  key: string;
  parentStepId: string | null;
  status: "queued" | "running" | "waiting" | "succeeded" | "failed" | "cancelled" | "skipped";
  input: unknown;
  output: Envelope | null;
  state: unknown;
  attempts: StepAttempt[];
  logs: StepLog[];
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface RunRow {
  id: string;
  workspaceId: string;
  automationId: string;
  version: number;
  status: string;
  triggerNodeId: string;
  eventId: string;
  taskId: string | null;
  taskStep: number | null;
  createdAt: string;
  startedAt: string | null;
}

const cache = new WeakMap<Db, ReturnType<typeof prepare>>();

function prepare(db: Db) {
  const c = db.$client;
  return {
    run: c.prepare(
      `select id, workspace_id as workspaceId, automation_id as automationId, version, status, trigger_node_id as triggerNodeId,
       event_id as eventId, task_id as taskId, task_step as taskStep, created_at as createdAt, started_at as startedAt from runs where id = ?`,
    ),
    runStatus: c.prepare("select status from runs where id = ?"),
    event: c.prepare("select envelope from events where id = ?"),
    step: c.prepare("select id, name, output, parent_step_id as parentStepId, state, attempts, logs, started_at as startedAt, created_at as createdAt from run_steps where id = ?"),
    upsert: c.prepare(
      `insert into run_steps (id, run_id, node_id, name, key, parent_step_id, status, input, output, state, attempts, logs, error, created_at, started_at, finished_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (id) do update set status = excluded.status, input = excluded.input, output = excluded.output, state = excluded.state,
       attempts = excluded.attempts, logs = excluded.logs, error = excluded.error, finished_at = excluded.finished_at`,
    ),
    activeJobs: c.prepare("select count(*) as n from jobs where run_id = ?"),
    leasedOthers: c.prepare("select count(*) as n from jobs where run_id = ? and status = 'leased' and id != ?"),
    setRunStatus: c.prepare("update runs set status = ?, updated_at = ? where id = ? and status in ('running', 'waiting', 'queued')"),
    finishRun: c.prepare("update runs set status = ?, error = ?, finished_at = ?, updated_at = ? where id = ? and status in ('running', 'waiting', 'queued')"),
    runJobs: c.prepare("select id, payload from jobs where run_id = ?"),
    deleteRunJobs: c.prepare("delete from jobs where run_id = ?"),
    cancelSteps: c.prepare("update run_steps set status = 'cancelled', finished_at = ? where run_id = ? and status in ('queued', 'running', 'waiting')"),
  };
}

export function stepStatements(db: Db) {
  let s = cache.get(db);
  if (!s) {
    s = prepare(db);
    cache.set(db, s);
  }
  return s;
}

export function loadRun(db: Db, runId: string): RunRow | undefined {
  return stepStatements(db).run.get(runId) as RunRow | undefined;
}

export function loadEventEnvelope(db: Db, eventId: string): Envelope {
  const row = stepStatements(db).event.get(eventId) as { envelope: string } | undefined;
  if (!row) throw new Error(`Event ${eventId} is missing`);
  return JSON.parse(row.envelope) as Envelope;
}

export interface ExistingStep {
  state: unknown;
  attempts: StepAttempt[];
  logs: StepLog[];
  startedAt: string | null;
  createdAt: string;
}

export function loadExistingStep(db: Db, stepId: string): ExistingStep | undefined {
  const r = stepStatements(db).step.get(stepId) as
    | { state: string | null; attempts: string; logs: string; startedAt: string | null; createdAt: string }
    | undefined;
  if (!r) return undefined;
  return { state: r.state ? JSON.parse(r.state) : undefined, attempts: JSON.parse(r.attempts), logs: JSON.parse(r.logs), startedAt: r.startedAt, createdAt: r.createdAt };
}

/** The message chain of a step: outputs of its ancestors by node name (nearest wins). */
export function loadChainSteps(db: Db, parentStepId: string | null): Record<string, Envelope> {
  const steps: Record<string, Envelope> = {};
  const s = stepStatements(db);
  let id = parentStepId;
  for (let guard = 0; id && guard < 1000; guard++) {
    const r = s.step.get(id) as { name: string; output: string | null; parentStepId: string | null } | undefined;
    if (!r) break;
    if (r.output && !(r.name in steps)) steps[r.name] = JSON.parse(r.output) as Envelope;
    id = r.parentStepId;
  }
  return steps;
}

export function writeStep(tx: Db, w: StepRowWrite): void {
  stepStatements(tx).upsert.run(
    w.id, w.runId, w.nodeId, w.name, w.key, w.parentStepId, w.status,
    w.input === undefined ? null : JSON.stringify(w.input), w.output ? JSON.stringify(w.output) : null,
    w.state === undefined ? null : JSON.stringify(w.state), JSON.stringify(w.attempts), JSON.stringify(w.logs),
    w.error, w.createdAt, w.startedAt, w.finishedAt,
  );
}
