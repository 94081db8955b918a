import { sqliteTable, text, integer, primaryKey } from "drizzle-orm/sqlite-core";

/**
 * Metered counters per workspace and hour bucket (`2026-11-22T04:00:00.000Z`).
 * Metrics: runs.<status> (a retried run moves: -1 on its previous outcome), steps.<status>, run_ms (working time), retries,
 * retry_wait_ms, test_runs.<status>, events.received, tasks.created, tasks.closed, api.calls.
 */
export const usageCounters = sqliteTable(
  "usage_counters",
  {
    workspaceId: text().notNull(),
    bucket: text().notNull(),
    metric: text().notNull(),
    value: integer().notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.bucket, t.metric] })],
);
