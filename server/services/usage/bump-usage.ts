/**
 * Usage counters: one row per workspace, hour bucket and metric (db/schema/usage.ts).
 * Metrics: runs.<status>, steps.<status>, run_ms, events.received, tasks.created, tasks.closed, api.calls.
 * Call inside the caller's transaction when the count belongs to a state change.
 */
import { sql } from "drizzle-orm";
import { usageCounters } from "@/db/schema";
import type { Db } from "@/db/client";

export function hourBucket(at: Date): string {
  const d = new Date(at.getTime());
  d.setUTCMinutes(0, 0, 0);
  return d.toISOString();
}

export function bumpUsage(tx: Db, workspaceId: string, metric: string, by = 1, at: Date = new Date()): void {
  tx.insert(usageCounters)
    .values({ workspaceId, bucket: hourBucket(at), metric, value: by })
    .onConflictDoUpdate({ target: [usageCounters.workspaceId, usageCounters.bucket, usageCounters.metric], set: { value: sql`${usageCounters.value} + ${by}` } })
    .run();
}
