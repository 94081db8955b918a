/** The audit log: who created, changed or revoked what. */
import { and, desc, eq, lt, type SQL } from "drizzle-orm";
import type { Ctx } from "../store-kit";
import type { AuditRow } from "../types";

export const auditStore = {
  async record(c: Ctx, row: AuditRow): Promise<void> {
    await c.h.insert(c.t.auditLog).values(row);
  },

  /** Newest first, before `at` when given. */
  async list(c: Ctx, organizationId: string, opts: { limit: number; before?: string }): Promise<AuditRow[]> {
    const { auditLog } = c.t;
    const conds: SQL[] = [eq(auditLog.organizationId, organizationId)];
    if (opts.before) conds.push(lt(auditLog.at, opts.before));
    return c.h.select().from(auditLog).where(and(...conds)).orderBy(desc(auditLog.at), desc(auditLog.id)).limit(opts.limit);
  },
};
