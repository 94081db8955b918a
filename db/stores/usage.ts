/**
 * Usage counters per workspace, hour bucket and metric (db/schema/usage.ts). Writers add to them
 * (several processes may add to the same counter: the upsert adds, it never overwrites); the
 * report reads a window of buckets.
 */
import { and, asc, eq, gte, lt, sql } from "drizzle-orm";
import type { Ctx } from "../store-kit";
import type { UsageCounterRow } from "../types";

export function hourBucket(at: Date): string {
  const d = new Date(at.getTime());
  d.setUTCMinutes(0, 0, 0);
  return d.toISOString();
}

/** Rows per INSERT (4 parameters each; well under both engines' parameter limits). */
const CHUNK = 500;

export const usageStore = {
  /**
   * Adds each row's `value` to its counter (created at 0 when absent), all in one transaction.
   * Rows naming the same counter are summed first (one statement may not touch a row twice).
   */
  async add(c: Ctx, rows: UsageCounterRow[]): Promise<void> {
    const merged = new Map<string, UsageCounterRow>();
    for (const r of rows) {
      const k = `${r.workspaceId}\u0000${r.bucket}\u0000${r.metric}`;
      const m = merged.get(k);
      if (m) m.value += r.value;
      else merged.set(k, { ...r });
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
