/** Usage counters: one row per workspace, hour bucket and metric, added to (never overwritten) by every process. */
import { sql } from "drizzle-orm";
import type { Ctx } from "../store-kit";

export function hourBucket(at: Date): string {
  const d = new Date(at.getTime());
  d.setUTCMinutes(0, 0, 0);
  return d.toISOString();
}

export const usageStore = {
  /** Adds to counters (upsert); several processes' additions add up. */
  async add(c: Ctx, rows: Array<{ workspaceId: string; bucket: string; metric: string; value: number }>): Promise<void> {
    if (!rows.length) return;
    const { usageCounters: u } = c.t;
    await c.h
      .insert(u)
      .values(rows)
      .onConflictDoUpdate({ target: [u.workspaceId, u.bucket, u.metric], set: { value: sql`${u.value} + excluded.value` } });
  },

  async bump(c: Ctx, workspaceId: string, metric: string, by: number, at: Date): Promise<void> {
    await usageStore.add(c, [{ workspaceId, bucket: hourBucket(at), metric, value: by }]);
  },
};
