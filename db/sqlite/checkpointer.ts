/**
 * WAL checkpoints off the main thread. SQLite's automatic checkpoint runs inside whichever COMMIT
 * crosses the threshold, stalling the event loop (webhook p99). While this worker thread is alive,
 * it checkpoints (PASSIVE: never blocks writers) on its own connection every `everyMs`, and the
 * main connection's auto-checkpoint is off; it is restored if the worker stops or dies.
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
parentPort.on("message", (m) => {
  if (m !== "stop") return;
  clearInterval(timer);
  try { db.pragma("wal_checkpoint(TRUNCATE)"); } catch {}
  db.close();
  parentPort.postMessage("stopped");
});
`;

export interface Checkpointer {
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
  worker.on("error", restore);
  worker.on("exit", restore);
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (!alive) return resolve();
        restore();
        const done = () => {
          void worker.terminate();
          resolve();
        };
        worker.once("message", done);
        worker.once("exit", () => resolve());
        worker.postMessage("stop");
        setTimeout(done, 3000).unref();
      }),
  };
}
