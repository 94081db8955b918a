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
