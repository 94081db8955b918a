/** In-process wake-up: work committed by this process (webhooks, starts) wakes the local runner at once. */
import { EventEmitter } from "node:events";

const KEY = Symbol.for("conveyor.runner.signal");
type G = typeof globalThis & { [KEY]?: EventEmitter };

export function runnerSignal(): EventEmitter {
  const g = globalThis as G;
  g[KEY] ??= new EventEmitter().setMaxListeners(100);
  return g[KEY];
}

export function notifyWork(): void {
  runnerSignal().emit("work");
}

const ABORT = Symbol.for("conveyor.runner.abort");
type GA = typeof globalThis & { [ABORT]?: Set<(runId: string) => void> };

/** Runners in this process register here so a cancel aborts in-flight steps at once. */
export function registerAbort(fn: (runId: string) => void): () => void {
  const g = globalThis as GA;
  g[ABORT] ??= new Set();
  g[ABORT].add(fn);
  return () => g[ABORT]!.delete(fn);
}

export function abortRunLocally(runId: string): void {
  (globalThis as GA)[ABORT]?.forEach((fn) => fn(runId));
}
