import type { AppDeps } from "../../deps";
import { assertCan, type Actor } from "../../auth/permissions";

/**
 * The audit log (who created, changed or revoked keys, members, connections, automations), newest
 * first, each entry with `targetName`: the name recorded with the entry, else the thing's current
 * name, else a name recorded by another entry about it. Admins only.
 */
export async function listAudit({ store }: AppDeps, actor: Actor, opts: { before?: string; limit?: number } = {}) {
  assertCan(actor, "audit.read");
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 200);
  const rows = await store.audit.list(actor.organizationId!, { limit: limit + 1, before: opts.before });
  const page = rows.slice(0, limit);
  const recorded = (r: (typeof rows)[number]) => (typeof r.data?.targetName === "string" ? r.data.targetName : undefined);
  const current = await store.audit.targetNames(page.map((r) => r.target).filter((t): t is string => !!t));
  const seen = new Map<string, string>();
  for (const r of page) if (r.target && recorded(r)) seen.set(r.target, recorded(r)!);
  const items = page.map((r) => ({ ...r, targetName: r.target ? (recorded(r) ?? current.get(r.target) ?? seen.get(r.target) ?? null) : null }));
  return { items, nextBefore: rows.length > limit ? rows[limit - 1]!.at : null };
}
