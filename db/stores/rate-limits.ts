/**
 * Fixed-window request counters shared by every process (the REST rate limit in scale-out mode).
 * One row per subject holds only its current window; a hit is a single atomic upsert.
 */
import { eq, sql } from "drizzle-orm";
import { first, type Ctx } from "../store-kit";

export const rateLimitsStore = {
  /**
   * Counts one hit for `key` in the window starting at `windowStart` (epoch ms) and returns the
   * window's count. A newer window replaces the stored one (count 1); a hit stamped with an older
   * window (a process whose clock lags) counts towards the stored, newer one.
   */
  async hit(c: Ctx, key: string, windowStart: number): Promise<{ count: number; windowStart: number }> {
    const { rateLimits: t } = c.t;
    const newer = sql`excluded.window_start > ${t.windowStart}`;
    const [row] = await c.h
      .insert(t)
      .values({ key, windowStart, count: 1 })
      .onConflictDoUpdate({
        target: t.key,
        set: {
          count: sql`case when ${newer} then 1 else ${t.count} + 1 end`,
          windowStart: sql`case when ${newer} then excluded.window_start else ${t.windowStart} end`,
        },
      })
      .returning({ count: t.count, windowStart: t.windowStart });
    return row!;
  },

  /** The stored window of `key` (tests, diagnostics). */
  async get(c: Ctx, key: string): Promise<{ count: number; windowStart: number } | undefined> {
    const { rateLimits: t } = c.t;
    return first(c.h.select({ count: t.count, windowStart: t.windowStart }).from(t).where(eq(t.key, key)).limit(1));
  },
};
