/** Figures read at scrape time for `/metrics` (server/observability/metrics.ts). */
import { count, min } from "drizzle-orm";
import type { Ctx } from "../store-kit";

export const metricsStore = {
  /** Runs in the database by status. */
  async runsByStatus(c: Ctx): Promise<Array<{ status: string; n: number }>> {
    const { runs } = c.t;
    const rows = await c.h.select({ status: runs.status, n: count() }).from(runs).groupBy(runs.status);
    return rows.map((r) => ({ status: r.status, n: Number(r.n) }));
  },
  /** Outbox rows (scale-out: runs committed but not yet published to the distributed queue) and the oldest one's creation (epoch ms). */
  async outbox(c: Ctx): Promise<{ rows: number; oldestCreatedAt: number | null }> {
    const { outbox } = c.t;
    const [r] = await c.h.select({ n: count(), oldest: min(outbox.createdAt) }).from(outbox);
    return { rows: Number(r?.n ?? 0), oldestCreatedAt: r?.oldest == null ? null : Number(r.oldest) };
  },
};
