/**
 * Usage counters per workspace, hour bucket and metric (db/schema/usage.ts). Writers add to them
 * (several processes may add to the same counter: the upsert adds, it never overwrites); the
 * report reads a window of buckets.
 */
import { and, asc, eq, gte, lt, sql } from "drizzle-orm";
import type { Ctx } from "../store-kit";
import type { UsageCounterRow } from "../types";

import { hourBucket } from "../usage-buckets";

/** Rows per INSERT (4 parameters each; well under both engines' parameter limits). */
const CHUNK = 500;

/**
 * Day rollups: every addition to an hour bucket (`2026-11-22T04:00:00.000Z`) also adds to its day's
 * row, bucket `d:2026-11-22` (same table, same additive upsert, same transaction). Day rows sort
 * after every hour bucket, so hour ranges never include them; a 90-day report reads ~90 rows per
 * metric instead of ~2,160 (docs/history-bench.md). Rows written before the rollups existed are
 * summed into day rows by migration 0008 (PostgreSQL: 0004).
 */
export const DAY_PREFIX = "d:";
const dayOf = (hourBucket: string) => `${DAY_PREFIX}${hourBucket.slice(0, 10)}`;
const isHourBucket = (b: string) => /^\d{4}-\d{2}-\d{2}T/.test(b);
const midnight = (iso: string) => `${iso.slice(0, 10)}T00:00:00.000Z`;
const nextMidnight = (iso: string) => new Date(Date.parse(midnight(iso)) + 86_400_000).toISOString();

export const usageStore = {
  /**
   * Adds each row's `value` to its counter (created at 0 when absent), all in one transaction.
   * Rows naming the same counter are summed first (one statement may not touch a row twice).
   */
  async add(c: Ctx, rows: UsageCounterRow[]): Promise<void> {
    const merged = new Map<string, UsageCounterRow>();
    const put = (r: UsageCounterRow) => {
      const k = `${r.workspaceId}\u0000${r.bucket}\u0000${r.metric}`;
      const m = merged.get(k);
      if (m) m.value += r.value;
      else merged.set(k, { ...r });
    };
    for (const r of rows) {
      put(r);
      if (isHourBucket(r.bucket)) put({ ...r, bucket: dayOf(r.bucket) });
    }
    if (!merged.size) return;
    const { usageCounters: t } = c.t;
    const all = [...merged.values()];
    await c.tx(async (x) => {
      for (let i = 0; i < all.length; i += CHUNK) {
        await x.h
          .insert(t)
          .values(all.slice(i, i + CHUNK))
          .onConflictDoUpdate({ target: [t.workspaceId, t.bucket, t.metric], set: { value: sql`${t.value} + excluded.value` } });
      }
    });
  },

  async bump(c: Ctx, workspaceId: string, metric: string, by: number, at: Date): Promise<void> {
    await usageStore.add(c, [{ workspaceId, bucket: hourBucket(at), metric, value: by }]);
  },

  /**
   * Sums of a workspace's counters with `fromBucket <= bucket < before` (hour-bucket ISO timestamps)
   * per day (bucket = the day's midnight UTC) or per hour, oldest first. Per day: the hours of the
   * partial first and last days, and the day rollups of the whole days between.
   */
  async summary(c: Ctx, workspaceId: string, fromBucket: string, before: string, granularity: "day" | "hour"): Promise<UsageCounterRow[]> {
    if (granularity === "hour") return usageStore.list(c, workspaceId, fromBucket, before);
    const { usageCounters: t } = c.t;
    const firstWhole = fromBucket === midnight(fromBucket) ? fromBucket : nextMidnight(fromBucket);
    const lastStart = midnight(before);
    const parts: UsageCounterRow[] = [];
    if (firstWhole >= lastStart) parts.push(...(await usageStore.list(c, workspaceId, fromBucket, before)));
    else {
      parts.push(...(await usageStore.list(c, workspaceId, fromBucket, firstWhole)));
      const days = await c.h
        .select()
        .from(t)
        .where(and(eq(t.workspaceId, workspaceId), gte(t.bucket, dayOf(firstWhole)), lt(t.bucket, dayOf(lastStart))));
      parts.push(...days.map((r) => ({ ...r, bucket: `${r.bucket.slice(DAY_PREFIX.length)}T00:00:00.000Z` })));
      parts.push(...(await usageStore.list(c, workspaceId, lastStart, before)));
    }
    const sums = new Map<string, UsageCounterRow>();
    for (const r of parts) {
      const bucket = midnight(r.bucket);
      const k = `${bucket}\u0000${r.metric}`;
      const m = sums.get(k);
      if (m) m.value += r.value;
      else sums.set(k, { workspaceId, bucket, metric: r.metric, value: r.value });
    }
    return [...sums.values()].sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : a.metric < b.metric ? -1 : a.metric > b.metric ? 1 : 0));
  },

  /** Counters of a workspace with `fromBucket <= bucket < before` (ISO timestamps), oldest first. */
  async list(c: Ctx, workspaceId: string, fromBucket: string, before: string): Promise<UsageCounterRow[]> {
    const { usageCounters: t } = c.t;
    return c.h
      .select()
      .from(t)
      .where(and(eq(t.workspaceId, workspaceId), gte(t.bucket, fromBucket), lt(t.bucket, before)))
      .orderBy(asc(t.bucket), asc(t.metric));
  },
};
