/**
 * What a claim already read for the runner (scale-out mode), served once by the engine's loads, and the
 * runs this process just ended, so that a run's queue entry ends without another claim.
 *
 * - Claims (db/pg/run-queue.ts claimRun) read the run row, its trigger envelope and the claimed jobs'
 *   step rows in the claim's own round trip; the runner's first `loadRun` / `loadEvent` / `loadStep`
 *   (db/pg/engine.ts) take them from here instead of three more round trips. An entry is served once
 *   and only within a second of its claim (the executor starts a claimed job at once; a job given back
 *   unstarted leaves an entry that simply expires); anything else reads the database.
 * - Step commits that end a run note it; the BullMQ processor that was waiting for the run's jobs then
 *   ends the run's job instead of claiming again to find nothing (a retry of the run re-adds its job
 *   once this one is done; db/queue/bullmq.ts).
 */
import type pg from "pg";

const TTL_MS = 1000;
const MAX = 10_000;

export const RUN_COLS = `id, workspace_id as "workspaceId", automation_id as "automationId", version, status, trigger_node_id as "triggerNodeId",
  event_id as "eventId", task_id as "taskId", task_step as "taskStep", created_at as "createdAt", started_at as "startedAt", mode`;

/** A cache miss (`undefined` and `null` are values: no row). */
export const MISS = Symbol("miss");

class Once<T> {
  private m = new Map<string, { v: T; at: number }>();
  put(key: string, v: T) {
    if (this.m.size >= MAX) this.m.clear();
    this.m.set(key, { v, at: Date.now() });
  }
  take(key: string): T | typeof MISS {
    const e = this.m.get(key);
    if (!e) return MISS;
    this.m.delete(key);
    return Date.now() - e.at <= TTL_MS ? e.v : MISS;
  }
}

export interface Prefetch {
  runs: Once<unknown>;
  events: Once<unknown>;
  /** null: the job has no step row yet. */
  steps: Once<unknown>;
  ended: Once<true>;
}

const byPool = new WeakMap<pg.Pool, Prefetch>();

export function prefetch(pool: pg.Pool): Prefetch {
  let p = byPool.get(pool);
  if (!p) byPool.set(pool, (p = { runs: new Once(), events: new Once(), steps: new Once(), ended: new Once() }));
  return p;
}
