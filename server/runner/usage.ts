/**
 * Usage counters (db/schema/usage.ts), accumulated in memory per process and flushed by the
 * runner's maintenance tick (about once a second) in one upsert batch: counting must not add a
 * write per step on the hot path.
 */
import type { Db } from "@/db/client";
import { prepared } from "@/db/prepared";

const KEY = Symbol.for("conveyor.usage.pending");
type G = typeof globalThis & { [KEY]?: Map<string, number> };

function pending(): Map<string, number> {
  const g = globalThis as G;
  g[KEY] ??= new Map();
  return g[KEY];
}

export function hourBucket(at: Date): string {
  const d = new Date(at);
  d.setUTCMinutes(0, 0, 0);
  return d.toISOString();
}

export function countUsage(workspaceId: string, metric: string, value = 1, at = new Date()): void {
  const k = `${workspaceId}\u0000${hourBucket(at)}\u0000${metric}`;
  const p = pending();
  p.set(k, (p.get(k) ?? 0) + value);
}

export function flushUsage(db: Db): number {
  const p = pending();
  if (!p.size) return 0;
  const entries = [...p.entries()];
  p.clear();
  const stmt = prepared(
    db,
    `insert into usage_counters (workspace_id, bucket, metric, value) values (?, ?, ?, ?)
     on conflict (workspace_id, bucket, metric) do update set value = value + excluded.value`,
  );
  db.$client.transaction(() => {
    for (const [k, v] of entries) {
      const [ws, bucket, metric] = k.split("\u0000") as [string, string, string];
      stmt.run(ws, bucket, metric, v);
    }
  })();
  return entries.length;
}
