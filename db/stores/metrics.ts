/** Figures read at scrape time for `/metrics` (server/observability/metrics.ts). */
import { count } from "drizzle-orm";
import type { Ctx } from "../store-kit";

export const metricsStore = {
  /** Runs in the database by status. */
  async runsByStatus(c: Ctx): Promise<Array<{ status: string; n: number }>> {
    const { runs } = c.t;
    const rows = await c.h.select({ status: runs.status, n: count() }).from(runs).groupBy(runs.status);
    return rows.map((r) => ({ status: r.status, n: Number(r.n) }));
  },
};
