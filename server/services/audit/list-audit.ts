import { and, desc, eq, lt } from "drizzle-orm";
import { auditLog } from "@/db/schema";
import type { AppDeps } from "../../deps";
import { assertCan, type Actor } from "../../auth/permissions";

/** The audit log (who created, changed or revoked keys, members, connections, automations), newest first. Admins only. */
export async function listAudit({ db }: AppDeps, actor: Actor, opts: { before?: string; limit?: number } = {}) {
  assertCan(actor, "audit.read");
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 200);
  const rows = await db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.organizationId, actor.organizationId!), opts.before ? lt(auditLog.at, opts.before) : undefined))
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(limit + 1);
  return { items: rows.slice(0, limit), nextBefore: rows.length > limit ? rows[limit - 1]!.at : null };
}
