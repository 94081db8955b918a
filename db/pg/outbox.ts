/**
 * Outbox rows of runs already published to the queue, waiting to be deleted (scale-out mode).
 *
 * Deleting them is bookkeeping, not a promise: a row left behind only makes the sweeper publish its
 * run again, which is harmless (one BullMQ job id per run; a run without due work is dropped at its
 * claim). So instead of one DELETE statement (and commit) per published batch, the run ids wait here
 * and the next ingest statement of this process deletes them in its own transaction
 * (db/pg/ingest.ts). When no ingest comes along within `delayMs`, a follow-up DELETE does it, well
 * within the sweeper's grace period.
 */
import type pg from "pg";
import { clearOutbox } from "./run-queue";

export interface OutboxClears {
  /** Run ids whose publication succeeded. */
  add(runIds: string[]): void;
  /** Takes every id waiting (the caller deletes them, or gives them back with `add` when it failed). */
  take(): string[];
}

const byPool = new WeakMap<pg.Pool, OutboxClears>();

/** The clears of one pool, shared by its publisher and its ingest batcher. */
export function outboxClears(pool: pg.Pool, delayMs = 50): OutboxClears {
  let clears = byPool.get(pool);
  if (clears) return clears;
  let ids: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const take = () => {
    const out = ids;
    ids = [];
    return out;
  };
  const arm = (ms: number) => {
    if (timer || !ids.length) return;
    timer = setTimeout(() => {
      timer = undefined;
      const batch = take();
      if (!batch.length) return;
      // Failed (database away): try again later; the sweeper republishes meanwhile, harmlessly.
      clearOutbox(pool, batch).catch(() => {
        ids.push(...batch);
        arm(1000);
      });
    }, ms);
    timer.unref();
  };
  clears = {
    add(runIds) {
      for (const id of runIds) ids.push(id);
      arm(delayMs);
    },
    take,
  };
  byPool.set(pool, clears);
  return clears;
}
