import type { AppDeps } from "../../deps";
import { assertCan, type Actor } from "../../auth/permissions";

/** The audit log (who created, changed or revoked keys, members, connections, automations), newest first. Admins only. */
export async function listAudit({ store }: AppDeps, actor: Actor, opts: { before?: string; limit?: number } = {}) {
  assertCan(actor, "audit.read");
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 200);
  const rows = await store.audit.list(actor.organizationId!, { limit: limit + 1, before: opts.before });
  return { items: rows.slice(0, limit), nextBefore: rows.length > limit ? rows[limit - 1]!.at : null };
}
