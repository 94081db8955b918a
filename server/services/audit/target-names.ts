/**
 * Names of audit targets (automation, connection, key, line, intake, member, workspace) by their
 * prefixed ids, so the audit log reads "Silence disk alerts" rather than `aut_…`.
 */
import { inArray } from "drizzle-orm";
import { apiKeys, automations, connections, intakes, invitations, lines, users, workspaces } from "@/db/schema";
import type { Db } from "@/db/client";

type Lookup = (db: Db, ids: string[]) => Array<{ id: string; name: string | null }>;

const LOOKUPS: Record<string, Lookup> = {
  aut: (db, ids) => db.select({ id: automations.id, name: automations.name }).from(automations).where(inArray(automations.id, ids)).all(),
  con: (db, ids) => db.select({ id: connections.id, name: connections.name }).from(connections).where(inArray(connections.id, ids)).all(),
  key: (db, ids) => db.select({ id: apiKeys.id, name: apiKeys.name }).from(apiKeys).where(inArray(apiKeys.id, ids)).all(),
  lin: (db, ids) => db.select({ id: lines.id, name: lines.name }).from(lines).where(inArray(lines.id, ids)).all(),
  int: (db, ids) => db.select({ id: intakes.id, name: intakes.name }).from(intakes).where(inArray(intakes.id, ids)).all(),
  ws: (db, ids) => db.select({ id: workspaces.id, name: workspaces.name }).from(workspaces).where(inArray(workspaces.id, ids)).all(),
  inv: (db, ids) => db.select({ id: invitations.id, name: invitations.email }).from(invitations).where(inArray(invitations.id, ids)).all(),
  usr: (db, ids) =>
    db.select({ id: users.id, name: users.name, email: users.email }).from(users).where(inArray(users.id, ids)).all().map((u) => ({ id: u.id, name: u.name || u.email })),
};

/** Current names of the given ids (ids whose thing no longer exists are absent). */
export function targetNames(db: Db, ids: Iterable<string>): Map<string, string> {
  const byPrefix = new Map<string, string[]>();
  for (const id of new Set(ids)) {
    const prefix = id.split("_")[0]!;
    if (LOOKUPS[prefix]) byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), id]);
  }
  const out = new Map<string, string>();
  for (const [prefix, list] of byPrefix) {
    for (let i = 0; i < list.length; i += 500) {
      for (const row of LOOKUPS[prefix]!(db, list.slice(i, i + 500))) if (row.name) out.set(row.id, row.name);
    }
  }
  return out;
}
