/**
 * In-process run control shared by the services and the runner (neither imports the other):
 * a cancel aborts the run's in-flight steps in this process at once (other processes notice on their
 * next lease renewal).
 */
const ABORT = Symbol.for("conveyor.runner.abort");
type GA = typeof globalThis & { [ABORT]?: Set<(runId: string) => void> };

/** Runners in this process register here. */
export function registerAbort(fn: (runId: string) => void): () => void {
  const g = globalThis as GA;
  g[ABORT] ??= new Set();
  g[ABORT].add(fn);
  return () => g[ABORT]!.delete(fn);
}

export function abortRunLocally(runId: string): void {
  (globalThis as GA)[ABORT]?.forEach((fn) => fn(runId));
}
