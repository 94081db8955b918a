/** The audit log: who created, changed or revoked what. */
import { and, desc, eq, inArray, lt, type SQL } from "drizzle-orm";
import type { Ctx } from "../store-kit";
import type { AuditRow } from "../types";

type Lookup = (c: Ctx, ids: string[]) => Promise<Array<{ id: string; name: string | null }>>;

/** How to name an audit target by its id prefix (automation, connection, key, line, intake, workspace, invitation, user). */
const LOOKUPS: Record<string, Lookup> = {
  aut: (c, ids) => c.h.select({ id: c.t.automations.id, name: c.t.automations.name }).from(c.t.automations).where(inArray(c.t.automations.id, ids)),
  con: (c, ids) => c.h.select({ id: c.t.connections.id, name: c.t.connections.name }).from(c.t.connections).where(inArray(c.t.connections.id, ids)),
  key: (c, ids) => c.h.select({ id: c.t.apiKeys.id, name: c.t.apiKeys.name }).from(c.t.apiKeys).where(inArray(c.t.apiKeys.id, ids)),
  lin: (c, ids) => c.h.select({ id: c.t.lines.id, name: c.t.lines.name }).from(c.t.lines).where(inArray(c.t.lines.id, ids)),
  int: (c, ids) => c.h.select({ id: c.t.intakes.id, name: c.t.intakes.name }).from(c.t.intakes).where(inArray(c.t.intakes.id, ids)),
  ws: (c, ids) => c.h.select({ id: c.t.workspaces.id, name: c.t.workspaces.name }).from(c.t.workspaces).where(inArray(c.t.workspaces.id, ids)),
  inv: (c, ids) => c.h.select({ id: c.t.invitations.id, name: c.t.invitations.email }).from(c.t.invitations).where(inArray(c.t.invitations.id, ids)),
  usr: async (c, ids) =>
    (await c.h.select({ id: c.t.users.id, name: c.t.users.name, email: c.t.users.email }).from(c.t.users).where(inArray(c.t.users.id, ids))).map((u) => ({
      id: u.id,
      name: u.name || u.email,
    })),
};

export const auditStore = {
  /** Current names of the given target ids (ids whose thing no longer exists are absent). */
  async targetNames(c: Ctx, ids: string[]): Promise<Map<string, string>> {
    const byPrefix = new Map<string, string[]>();
    for (const id of new Set(ids)) {
      const prefix = id.split("_")[0]!;
      if (LOOKUPS[prefix]) byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), id]);
    }
    const out = new Map<string, string>();
    for (const [prefix, list] of byPrefix) {
      for (let i = 0; i < list.length; i += 500) {
        for (const row of await LOOKUPS[prefix]!(c, list.slice(i, i + 500))) if (row.name) out.set(row.id, row.name);
      }
    }
    return out;
  },

  async record(c: Ctx, row: AuditRow): Promise<void> {
    await c.h.insert(c.t.auditLog).values(row);
  },

  /** Newest first, before `at` when given. */
  async list(c: Ctx, organizationId: string, opts: { limit: number; before?: string }): Promise<AuditRow[]> {
    const { auditLog } = c.t;
    const conds: SQL[] = [eq(auditLog.organizationId, organizationId)];
    if (opts.before) conds.push(lt(auditLog.at, opts.before));
    return c.h
      .select()
      .from(auditLog)
      .where(and(...conds))
      .orderBy(desc(auditLog.at), desc(auditLog.id))
      .limit(opts.limit);
  },
};
