/**
 * Usage counters: one row per workspace, hour bucket and metric (db/schema/usage.ts).
 * Metrics: runs.<status>, steps.<status>, run_ms, events.received, tasks.created, tasks.closed, api.calls.
 *
 * TODO(seam): `bumpUsage` is the synchronous SQLite form still called inside the tasks services'
 * legacy transactions (server/services/tasks/*, converted by the storage seam's run/task work);
 * store code uses `addUsage(s, …)` from ./buckets (`store.usage.add`) instead. Delete this file then.
 */
import { sql } from "drizzle-orm";
import { usageCounters } from "@/db/schema";
import type { Db } from "@/db/client";
import { hourBucket } from "./buckets";

export { hourBucket };

export function bumpUsage(tx: Db, workspaceId: string, metric: string, by = 1, at: Date = new Date()): void {
  tx.insert(usageCounters)
    .values({ workspaceId, bucket: hourBucket(at), metric, value: by })
    .onConflictDoUpdate({ target: [usageCounters.workspaceId, usageCounters.bucket, usageCounters.metric], set: { value: sql`${usageCounters.value} + ${by}` } })
    .run();
}
