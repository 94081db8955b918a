/**
 * Usage counters (db/schema/usage.ts), accumulated in memory per process and flushed about once a
 * second in one additive upsert: counting must not add a write per step on the hot path. Flushes of
 * several processes add up. Counters not yet flushed are lost if the process crashes (at most ~1 s).
 */
import type { Store } from "@/db/store";
import { getMetrics } from "./observability/metrics";

const KEY = Symbol.for("conveyor.usage.pending");
type G = typeof globalThis & { [KEY]?: Map<string, number> };

function pending(): Map<string, number> {
  const g = globalThis as G;
  g[KEY] ??= new Map();
  return g[KEY];
}

// The last hour's bucket: counting happens several times per delivery and per step, nearly always in the same hour.
let lastBucket = { from: 0, to: 0, iso: "" };

export function hourBucket(at: Date): string {
  const t = at.getTime();
  if (t >= lastBucket.from && t < lastBucket.to) return lastBucket.iso;
  const d = new Date(at);
  d.setUTCMinutes(0, 0, 0);
  lastBucket = { from: d.getTime(), to: d.getTime() + 3_600_000, iso: d.toISOString() };
  return lastBucket.iso;
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

/** Counts a run that ended (usage and /metrics), once, by the process that ended it. */
export function countFinishedRun(run: { workspaceId: string; startedAt: string | null; createdAt: string }, status: "succeeded" | "failed" | "cancelled", at: Date): void {
  countUsage(run.workspaceId, `runs.${status}`, 1, at);
  getMetrics().runsFinished.inc({ status });
  const started = Date.parse(run.startedAt ?? run.createdAt);
  if (Number.isFinite(started)) countUsage(run.workspaceId, "run_ms", Math.max(0, at.getTime() - started), at);
}
