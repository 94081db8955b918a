/**
 * The database's background thread: WAL checkpoints and long reads, off the main thread.
 *
 * - Checkpoints: SQLite's automatic checkpoint runs inside whichever COMMIT crosses the threshold,
 *   stalling the event loop (webhook p99). While this worker thread is alive, it checkpoints
 *   (PASSIVE: never blocks writers) on its own connection every `everyMs`, and the main
 *   connection's auto-checkpoint is off; it is restored if the worker stops or dies.
 * - Long reads (`all`): queries whose cost grows with the stored history, such as counting every
 *   run by status for `/metrics` (78 ms for 1,000,000 runs, measured), run here on the thread's own
 *   connection, so a scrape never stalls the event loop that serves webhooks and runs steps. WAL
 *   lets it read while the main connection writes; it sees what was committed when it starts.
 */
import { Worker } from "node:worker_threads";
import type { Db } from "../client";

const CODE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require("better-sqlite3");
const db = new Database(workerData.file);
db.pragma("busy_timeout = 5000");
const tick = () => { try { db.pragma("wal_checkpoint(PASSIVE)"); } catch {} };
const timer = setInterval(tick, workerData.everyMs);
const statements = new Map();
parentPort.on("message", (m) => {
  if (m && typeof m === "object") {
    try {
      let s = statements.get(m.sql);
      if (!s) statements.set(m.sql, (s = db.prepare(m.sql)));
      parentPort.postMessage({ id: m.id, rows: s.all(...m.params) });
    } catch (e) {
      parentPort.postMessage({ id: m.id, error: String((e && e.message) || e) });
    }
    return;
  }
  if (m !== "stop") return;
  clearInterval(timer);
  try { db.pragma("wal_checkpoint(TRUNCATE)"); } catch {}
  db.close();
  parentPort.postMessage("stopped");
});
`;

export interface Checkpointer {
  /** Runs a read on the background thread's connection (rejects once the thread is gone). */
  all<T>(sql: string, params?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

export function startCheckpointer(db: Db, everyMs = 1000): Checkpointer | null {
  const file = db.$client.name;
  if (!file || file === ":memory:" || db.$client.memory) return null;
  const previous = db.$client.pragma("wal_autocheckpoint", { simple: true }) as number;
  const worker = new Worker(CODE, { eval: true, workerData: { file, everyMs } });
  worker.unref();
  db.$client.pragma("wal_autocheckpoint = 0");
  let alive = true;
  const restore = () => {
    if (!alive) return;
    alive = false;
    try {
      if (db.$client.open) db.$client.pragma(`wal_autocheckpoint = ${previous || 1000}`);
    } catch {
      /* closing */
    }
  };
  const pending = new Map<number, { resolve(rows: unknown[]): void; reject(e: Error): void }>();
  let nextId = 0;
  const failPending = () => {
    for (const p of pending.values()) p.reject(new Error("the database's background thread stopped"));
    pending.clear();
  };
  worker.on("message", (m: { id?: number; rows?: unknown[]; error?: string }) => {
    const p = m && typeof m === "object" && m.id !== undefined ? pending.get(m.id) : undefined;
    if (!p) return;
    pending.delete(m.id!);
    if (m.error !== undefined) p.reject(new Error(m.error));
    else p.resolve(m.rows ?? []);
    if (!pending.size) worker.unref();
  });
  worker.on("error", () => (restore(), failPending()));
  worker.on("exit", () => (restore(), failPending()));
  return {
    all: <T>(sql: string, params: unknown[] = []) =>
      new Promise<T[]>((resolve, reject) => {
        if (!alive) return reject(new Error("the database's background thread stopped"));
        const id = nextId++;
        pending.set(id, { resolve: resolve as (rows: unknown[]) => void, reject });
        worker.ref(); // an answer is awaited: keep the process up for it
        worker.postMessage({ id, sql, params });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (!alive) return resolve();
        restore();
        const done = () => {
          void worker.terminate();
          resolve();
        };
        worker.on("message", (m: unknown) => m === "stopped" && done());
        worker.once("exit", () => resolve());
        worker.ref(); // the process waits for the last checkpoint (an unref'd thread would let it exit first)
        worker.postMessage("stop");
        setTimeout(done, 3000).unref();
      }),
  };
}
