/** The usage report over a window of up to 90 days, by day or hour. */
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError } from "../../errors";
import { requireWorkspace } from "../access";
import { hourBucket } from "@/db/usage-buckets";

export const MAX_USAGE_WINDOW_DAYS = 90;
const DAY = 86_400_000;

type Totals = {
  runs: Record<string, number>;
  steps: Record<string, number>;
  runTimeMs: number;
  retries: number;
  retryWaitMs: number;
  testRuns: Record<string, number>;
  eventsReceived: number;
  tasksCreated: number;
  tasksClosed: number;
  apiCalls: number;
};
const empty = (): Totals => ({
  runs: {},
  steps: {},
  runTimeMs: 0,
  retries: 0,
  retryWaitMs: 0,
  testRuns: {},
  eventsReceived: 0,
  tasksCreated: 0,
  tasksClosed: 0,
  apiCalls: 0,
});

/** Adds to a by-status map; a status whose count went back to 0 (a retried run moved on) is left out. */
function bump(m: Record<string, number>, k: string, value: number) {
  const v = (m[k] ?? 0) + value;
  if (v === 0) delete m[k];
  else m[k] = v;
}

function add(t: Totals, metric: string, value: number) {
  if (metric.startsWith("runs.")) bump(t.runs, metric.slice(5), value);
  else if (metric.startsWith("steps.")) bump(t.steps, metric.slice(6), value);
  else if (metric.startsWith("test_runs.")) bump(t.testRuns, metric.slice(10), value);
  else if (metric === "run_ms") t.runTimeMs += value;
  else if (metric === "retries") t.retries += value;
  else if (metric === "retry_wait_ms") t.retryWaitMs += value;
  else if (metric === "events.received") t.eventsReceived += value;
  else if (metric === "tasks.created") t.tasksCreated += value;
  else if (metric === "tasks.closed") t.tasksClosed += value;
  else if (metric === "api.calls") t.apiCalls += value;
}

export async function getUsage(deps: AppDeps, actor: Actor, workspaceId: string, q: { from?: string; to?: string; granularity?: "day" | "hour" }) {
  await requireWorkspace(deps.store, actor, workspaceId, "usage.read");
  const granularity = q.granularity ?? "day";
  const to = q.to ? new Date(q.to) : deps.now();
  const from = q.from ? new Date(q.from) : new Date(to.getTime() - 30 * DAY);
  if (from.getTime() >= to.getTime()) {
    throw new AppError("validation_failed", "`from` must be before `to`.", [{ path: "from", message: "Must be before `to`" }]);
  }
  if (to.getTime() - from.getTime() > MAX_USAGE_WINDOW_DAYS * DAY) {
    throw new AppError("validation_failed", `The window may span at most ${MAX_USAGE_WINDOW_DAYS} days.`, [
      { path: "from", message: `At most ${MAX_USAGE_WINDOW_DAYS} days before \`to\`` },
    ]);
  }
  // Hour buckets are the storage unit: include the bucket containing `from`, exclude buckets starting at/after `to`.
  // Summed per day (or hour) in the database; the raw runs are never read.
  const rows = await deps.store.usage.summary(workspaceId, hourBucket(from), to.toISOString(), granularity);
  const totals = empty();
  const buckets = new Map<string, Totals>();
  for (const r of rows) {
    add(totals, r.metric, r.value);
    const start = r.bucket;
    if (!buckets.has(start)) buckets.set(start, empty());
    add(buckets.get(start)!, r.metric, r.value);
  }
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    granularity,
    totals,
    buckets: [...buckets.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([start, t]) => ({ start, ...t })),
  };
}
