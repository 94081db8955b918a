/**
 * Usage counters (db/schema/usage.ts), accumulated in memory per process and flushed about once a
 * second in one additive upsert: counting must not add a write per step on the hot path. Flushes of
 * several processes add up. Counters not yet flushed are lost if the process crashes (at most ~1 s).
 */
import type { Store } from "@/db/store";
import type { StepAttempt } from "@/db/types";
import { getMetrics } from "./observability/metrics";
import { hourBucket } from "@/db/usage-buckets";

const KEY = Symbol.for("conveyor.usage.pending");
type G = typeof globalThis & { [KEY]?: Map<string, number> };

function pending(): Map<string, number> {
  const g = globalThis as G;
  g[KEY] ??= new Map();
  return g[KEY];
}

export function countUsage(workspaceId: string, metric: string, value = 1, at = new Date()): void {
  const k = `${workspaceId}\u0000${hourBucket(at)}\u0000${metric}`;
  const p = pending();
  p.set(k, (p.get(k) ?? 0) + value);
}

/** Writes the pending counters; on failure they are kept for the next flush. */
export async function flushUsage(store: Store): Promise<number> {
  const p = pending();
  if (!p.size) return 0;
  const entries = [...p.entries()];
  p.clear();
  const rows = entries.map(([k, value]) => {
    const [workspaceId, bucket, metric] = k.split("\u0000") as [string, string, string];
    return { workspaceId, bucket, metric, value };
  });
  try {
    await store.usage.add(rows);
  } catch (e) {
    for (const [k, v] of entries) p.set(k, (p.get(k) ?? 0) + v);
    throw e;
  }
  return rows.length;
}

/** Flushes every second until stopped (web and ingress processes; runners flush in maintenance). */
export function startUsageFlusher(store: Store, everyMs = 1000): () => Promise<void> {
  const timer = setInterval(() => void flushUsage(store).catch(() => undefined), everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await flushUsage(store).catch(() => undefined);
  };
}

/** Counts a run just created (its event, and its end when it had no step to run). */
export function countCreatedRun(workspaceId: string, created: { finished: boolean } | null, opts: { newEvent: boolean; at: Date }): void {
  if (!created) return;
  if (opts.newEvent) countUsage(workspaceId, "events.received", 1, opts.at);
  if (created.finished) countUsage(workspaceId, "runs.succeeded", 1, opts.at);
}

/**
 * Counts a run that ended (usage and /metrics), by the process that ended it. A production run is
 * counted once under its latest outcome: a retry takes its previous outcome back (`countRetry`), so
 * one run retried three times is still one run. Test runs are counted apart (`test_runs.<status>`).
 * Working time is counted per step attempt (`countStepAttempt`), not from the run's start to its end,
 * so the time a failed run waited for someone to retry it is not run time.
 */
export function countFinishedRun(run: { workspaceId: string; mode?: string }, status: "succeeded" | "failed" | "cancelled", at: Date): void {
  if (run.mode === "test") return countUsage(run.workspaceId, `test_runs.${status}`, 1, at);
  countUsage(run.workspaceId, `runs.${status}`, 1, at);
  getMetrics().runsFinished.inc({ status });
}

/**
 * The automatic retry backoff before an attempt that starts at `startedAt` after `previous`: the time
 * since `previous` failed, unless a person retried the run after it (`manualRetryAt`; then 0: the
 * runner did not wait, it had given up). The runner counts it (`countStepAttempt`), the run view sums it
 * (services/runs/timing.ts).
 */
export function automaticRetryWaitMs(previous: StepAttempt | undefined, startedAt: string | Date): number {
  if (!previous?.error || !previous.finishedAt || previous.manualRetryAt) return 0;
  return Math.max(0, (typeof startedAt === "string" ? Date.parse(startedAt) : startedAt.getTime()) - Date.parse(previous.finishedAt));
}

/**
 * One attempt of a production step: its working time (`run_ms`), and, when the runner retried a failed
 * attempt automatically, the backoff in between (`retry_wait_ms`; the caller passes 0 after a manual
 * retry: the time until someone retried the run is not a wait between retries, services/runs/timing.ts).
 */
export function countStepAttempt(workspaceId: string, attempt: { durationMs: number; waitedMs: number }, at: Date): void {
  countUsage(workspaceId, "run_ms", Math.max(0, attempt.durationMs), at);
  if (attempt.waitedMs > 0) countUsage(workspaceId, "retry_wait_ms", attempt.waitedMs, at);
}

/**
 * A finished production run is retried (by a person): it leaves the count of its previous outcome (in
 * the hour that outcome was counted) and will be counted again when the retry ends; the retry is counted
 * as an attempt (`retries`). The time the run waited for it is not `retry_wait_ms` (automatic backoff only).
 */
export function countRetry(run: { workspaceId: string; status: string; finishedAt: string | null }, at: Date): void {
  const counted = run.finishedAt ? new Date(run.finishedAt) : at;
  countUsage(run.workspaceId, `runs.${run.status}`, -1, Number.isFinite(counted.getTime()) ? counted : at);
  countUsage(run.workspaceId, "retries", 1, at);
}
