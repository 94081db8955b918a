/**
 * Group commit: every write submitted during one event-loop tick runs in ONE transaction (one
 * fsync/WAL append). Each caller's promise settles after the shared COMMIT, so "answered after
 * durable" holds while thousands of deliveries per second share commits (see docs/engine.md).
 *
 * A failing item must not undo the others. The first pass runs the batch without savepoints (a
 * savepoint per item copied every page the item touched into SQLite's sub-journal: a quarter of the
 * ingest's CPU, measured in docs/benchmarks.md); if any item throws, the whole transaction is rolled
 * back and the batch runs again with one savepoint per item, so the failing item alone is rejected.
 * Items must therefore be replayable: they write only through `tx`, and their in-memory effects
 * are undone by the `onBatchAbort` hooks (or are harmless to repeat, like generating fresh ids).
 */
import type { Db } from "../client";
import { gateOf } from "./backend";

interface Item {
  fn: (tx: Db) => unknown;
  /** Set after a failed first pass: run in its own savepoint. */
  isolate?: boolean;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export interface GroupCommitter {
  run<T>(fn: (tx: Db) => T): Promise<T>;
  /** Runs `fn` at the end of every batch, inside its transaction (aggregated counters). */
  onBatchEnd(fn: (tx: Db) => void): void;
  /** Runs `fn` when a batch's first pass is rolled back (to forget in-memory effects of its items). */
  onBatchAbort(fn: () => void): void;
  /** Number of transactions committed (for benchmarks). */
  readonly commits: number;
  /** Batches that had a failing item and ran again with a savepoint per item. */
  readonly replays: number;
  /** Times the write lock was held by another connection and the batch was retried. */
  readonly busyRetries: number;
}

const committers = new WeakMap<Db, GroupCommitter>();

export function groupCommitter(db: Db, maxBatch = 2000): GroupCommitter {
  let c = committers.get(db);
  if (!c) {
    c = createGroupCommitter(db, maxBatch);
    committers.set(db, c);
  }
  return c;
}

function createGroupCommitter(db: Db, maxBatch: number): GroupCommitter {
  let pending: Item[] = [];
  let scheduled = false;
  let commits = 0;
  let replays = 0;
  const endHooks: Array<(tx: Db) => void> = [];
  const abortHooks: Array<() => void> = [];
  const c = db.$client;
  // Savepoints by hand (better-sqlite3's transaction() builds new wrappers per call: too slow per item).
  const stmts = {
    begin: c.prepare("BEGIN IMMEDIATE"),
    commit: c.prepare("COMMIT"),
    rollback: c.prepare("ROLLBACK"),
    savepoint: c.prepare("SAVEPOINT gc_item"),
    release: c.prepare("RELEASE gc_item"),
    rollbackTo: c.prepare("ROLLBACK TO gc_item"),
  };

  // Taking the write lock never waits inside SQLite (its busy handler sleeps in steps up to 100 ms
  // and blocks the event loop): when another process holds the lock, the batch retries in 1 ms.
  const busyTimeout = (c.pragma("busy_timeout", { simple: true }) as number) || 5000;
  const noWait = c.prepare("PRAGMA busy_timeout = 0");
  const wait = c.prepare(`PRAGMA busy_timeout = ${busyTimeout}`);
  let busySince: number | undefined;
  let busyRetries = 0;
  const tryBegin = (): boolean => {
    noWait.run();
    try {
      stmts.begin.run();
      return true;
    } catch (e) {
      if ((e as { code?: string }).code === "SQLITE_BUSY") return false;
      throw e;
    } finally {
      wait.run();
    }
  };

  /** Every item without savepoints; false at the first item that throws. */
  const runOptimistic = (batch: Item[], outcomes: Array<{ ok: boolean; value: unknown }>): boolean => {
    for (const item of batch) {
      try {
        outcomes.push({ ok: true, value: item.fn(db) });
      } catch {
        return false;
      }
    }
    return true;
  };
  const runIsolated = (batch: Item[], outcomes: Array<{ ok: boolean; value: unknown }>): void => {
    for (const item of batch) {
      stmts.savepoint.run();
      try {
        outcomes.push({ ok: true, value: item.fn(db) });
        stmts.release.run();
      } catch (e) {
        stmts.rollbackTo.run();
        stmts.release.run();
        outcomes.push({ ok: false, value: e });
      }
    }
  };

  const gate = gateOf(db);
  const flush = () => {
    scheduled = false;
    if (gate.held) {
      // An async store transaction is open on this connection: try again right after it.
      scheduled = true;
      setTimeout(flush, 1);
      return;
    }
    const batch = pending.splice(0, maxBatch);
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    try {
      if (!tryBegin()) {
        busySince ??= Date.now();
        busyRetries++;
        if (Date.now() - busySince < busyTimeout) {
          pending = batch.concat(pending);
          scheduled = true;
          setTimeout(flush, 1);
          return;
        }
        busySince = undefined;
        throw Object.assign(new Error("database is locked (busy for too long)"), { code: "SQLITE_BUSY" });
      }
      busySince = undefined;
      if (pending.length) schedule();
      try {
        if (batch.some((item) => item.isolate)) runIsolated(batch, outcomes);
        else if (!runOptimistic(batch, outcomes)) {
          // An item failed: undo the whole pass; the batch runs again at once, each item in a savepoint.
          if (db.$client.inTransaction) stmts.rollback.run();
          for (const hook of abortHooks) hook();
          replays++;
          for (const item of batch) item.isolate = true;
          pending = batch.concat(pending);
          schedule();
          return;
        }
        for (const hook of endHooks) hook(db);
        stmts.commit.run();
      } catch (e) {
        if (db.$client.inTransaction) stmts.rollback.run();
        for (const hook of abortHooks) hook();
        throw e;
      }
      commits++;
    } catch (e) {
      for (const item of batch) item.reject(e);
      if (pending.length) schedule();
      return;
    }
    batch.forEach((item, i) => (outcomes[i]!.ok ? item.resolve(outcomes[i]!.value) : item.reject(outcomes[i]!.value)));
  };

  const schedule = () => {
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };

  return {
    run<T>(fn: (tx: Db) => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        pending.push({ fn, resolve: resolve as (v: unknown) => void, reject });
        schedule();
      });
    },
    onBatchEnd(fn) {
      endHooks.push(fn);
    },
    onBatchAbort(fn) {
      abortHooks.push(fn);
    },
    get replays() {
      return replays;
    },
    get busyRetries() {
      return busyRetries;
    },
    get commits() {
      return commits;
    },
  };
}
