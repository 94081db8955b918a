/**
 * Reference-counted upstream webhook registrations (one per connection and key) and the trigger
 * nodes using them. The counting is atomic on both engines:
 * - `claim` inserts the registration (as pending, `upstreamId` "") or joins the existing one, in
 *   one transaction (`INSERT … ON CONFLICT DO NOTHING`, then the row is locked before the user is
 *   added), so concurrent first users create one registration;
 * - `leave` removes a user and, when it was the last one, deletes the registration in the same
 *   transaction (row locked first), so a concurrent `claim` either joined before (and the
 *   registration stays) or finds none (and creates a new one).
 * The upstream calls (create / update / destroy) run outside these transactions.
 */
import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import { first, type Ctx } from "../store-kit";
import type { StoredGraph, WebhookRegistrationRow } from "../types";

export type RegistrationUser = { automationId: string; nodeId: string };
export type RegistrationRecordFields = Pick<WebhookRegistrationRow, "upstreamId" | "expiresAt" | "data">;

/** Locks the registration row until the end of the transaction; undefined when it is gone. */
async function lockRow(c: Ctx, connectionId: string, key: string): Promise<WebhookRegistrationRow | undefined> {
  const { webhookRegistrations: r } = c.t;
  return first(
    c.h
      .update(r)
      .set({ updatedAt: sql`${r.updatedAt}` })
      .where(and(eq(r.connectionId, connectionId), eq(r.key, key)))
      .returning(),
  );
}

export const registrationsStore = {
  async find(c: Ctx, connectionId: string, key: string): Promise<WebhookRegistrationRow | undefined> {
    const { webhookRegistrations: r } = c.t;
    return first(
      c.h
        .select()
        .from(r)
        .where(and(eq(r.connectionId, connectionId), eq(r.key, key)))
        .limit(1),
    );
  },

  /**
   * Counts `user` as a user of the registration `key`, creating it as pending (`upstreamId` "")
   * when there is none. `claimed` says this caller created it (and must fill or abandon it).
   */
  async claim(
    c: Ctx,
    connectionId: string,
    key: string,
    user: RegistrationUser,
    fresh: { id: string; at: string },
  ): Promise<{ claimed: boolean; row: WebhookRegistrationRow }> {
    const { webhookRegistrations: r, webhookRegistrationUsers: u } = c.t;
    for (;;) {
      const out = await c.tx(async (x) => {
        const inserted = await first(
          x.h
            .insert(r)
            .values({ id: fresh.id, connectionId, key, upstreamId: "", expiresAt: null, data: null, createdAt: fresh.at, updatedAt: fresh.at })
            .onConflictDoNothing()
            .returning(),
        );
        const row = inserted ?? (await lockRow(x, connectionId, key));
        if (!row) return undefined; // deleted by a concurrent last `leave` in between: try again
        await x.h
          .insert(u)
          .values({ registrationId: row.id, ...user, createdAt: fresh.at })
          .onConflictDoNothing();
        return { claimed: !!inserted, row };
      });
      if (out) return out;
    }
  },

  /** Stores the upstream record of a registration (pending or not); false when it no longer exists. */
  async save(c: Ctx, registrationId: string, rec: RegistrationRecordFields, at: string): Promise<boolean> {
    const { webhookRegistrations: r } = c.t;
    const rows = await c.h
      .update(r)
      .set({ ...rec, updatedAt: at })
      .where(eq(r.id, registrationId))
      .returning({ id: r.id });
    return rows.length > 0;
  },

  /** Drops a pending registration whose creation failed (its users go with it). */
  async abandon(c: Ctx, registrationId: string): Promise<void> {
    const { webhookRegistrations: r } = c.t;
    await c.h.delete(r).where(and(eq(r.id, registrationId), eq(r.upstreamId, "")));
  },

  /**
   * Removes `user`; when no user is left the registration is deleted too and returned with
   * `last: true` (the caller destroys it upstream, and may `restore` it if that fails).
   */
  async leave(c: Ctx, connectionId: string, key: string, user: RegistrationUser): Promise<{ row: WebhookRegistrationRow; last: boolean } | undefined> {
    const { webhookRegistrations: r, webhookRegistrationUsers: u } = c.t;
    return c.tx(async (x) => {
      const row = await lockRow(x, connectionId, key);
      if (!row) return undefined;
      await x.h.delete(u).where(and(eq(u.registrationId, row.id), eq(u.automationId, user.automationId), eq(u.nodeId, user.nodeId)));
      const left = (await first(x.h.select({ n: count() }).from(u).where(eq(u.registrationId, row.id))))?.n ?? 0;
      if (left > 0) return { row, last: false };
      await x.h.delete(r).where(eq(r.id, row.id));
      return { row, last: true };
    });
  },

  /** Puts back a registration deleted by `leave` whose upstream destroy failed (unless a new one took the key). */
  async restore(c: Ctx, row: WebhookRegistrationRow): Promise<void> {
    await c.h.insert(c.t.webhookRegistrations).values(row).onConflictDoNothing();
  },

  /** The users of registration `key` with their automation's graph and enabled flag (null when the automation is gone). */
  async users(c: Ctx, connectionId: string, key: string): Promise<Array<RegistrationUser & { graph: StoredGraph | null; enabled: boolean | null }>> {
    const { webhookRegistrations: r, webhookRegistrationUsers: u, automations: a } = c.t;
    return c.h
      .select({ automationId: u.automationId, nodeId: u.nodeId, graph: a.graph, enabled: a.enabled })
      .from(u)
      .innerJoin(r, eq(r.id, u.registrationId))
      .leftJoin(a, eq(a.id, u.automationId))
      .where(and(eq(r.connectionId, connectionId), eq(r.key, key)))
      .orderBy(asc(u.createdAt), asc(u.automationId), asc(u.nodeId));
  },

  /** The registration each trigger node of these automations uses. */
  async ofAutomations(c: Ctx, automationIds: string[]): Promise<Array<RegistrationUser & { upstreamId: string; expiresAt: string | null }>> {
    if (!automationIds.length) return [];
    const { webhookRegistrations: r, webhookRegistrationUsers: u } = c.t;
    return c.h
      .select({ automationId: u.automationId, nodeId: u.nodeId, upstreamId: r.upstreamId, expiresAt: r.expiresAt })
      .from(u)
      .innerJoin(r, eq(r.id, u.registrationId))
      .where(inArray(u.automationId, automationIds));
  },
};
