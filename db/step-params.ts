/**
 * A step row as the positional parameters of both engines' step upsert (db/sqlite/statements.ts,
 * db/pg/engine.ts): the same columns in the same order, JSON columns serialised.
 */
import type { StepRowWrite } from "./engine";

export function stepRowParams(w: StepRowWrite): unknown[] {
  return [
    w.id,
    w.runId,
    w.nodeId,
    w.name,
    w.key,
    w.parentStepId,
    w.status,
    w.input === undefined ? null : JSON.stringify(w.input),
    w.output ? (w.outputJson ?? JSON.stringify(w.output)) : null,
    w.state === undefined ? null : JSON.stringify(w.state),
    JSON.stringify(w.attempts),
    JSON.stringify(w.logs),
    w.error,
    w.createdAt,
    w.startedAt,
    w.finishedAt,
    w.origin ? JSON.stringify(w.origin) : null,
  ];
}

/** The row of a step that never started, in a run that was cancelled or ended around it. */
export function cancelledStepRow(
  job: { id: string; runId: string; nodeId: string; parentStepId: string | null },
  node: { name: string; key: string },
  iso: string,
  error: string | null = null,
): StepRowWrite & { status: "cancelled"; output: null } {
  return {
    id: job.id,
    runId: job.runId,
    nodeId: job.nodeId,
    name: node.name,
    key: node.key,
    parentStepId: job.parentStepId,
    status: "cancelled",
    input: null,
    output: null,
    state: null,
    attempts: [],
    logs: [],
    error,
    createdAt: iso,
    startedAt: null,
    finishedAt: iso,
  };
}
