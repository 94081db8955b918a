/**
 * Connections (an integration configured in a workspace), their OAuth authorisation requests, and
 * the token bookkeeping shared by every process on the database:
 * - the refresh lock is a lease on the row (`acquireRefreshLock`: a guarded UPDATE that only one
 *   caller wins while the lease is held);
 * - a refreshed token pair is stored with a compare-and-set on `tokenVersion` (and the lock owner)
 *   written into the UPDATE itself, so it holds under PostgreSQL's READ COMMITTED too.
 */
import { and, asc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { first, type Ctx } from "../store-kit";
import type { ConnectionRow, OAuthStateRow } from "../types";

export type TokenState = Pick<ConnectionRow, "tokensEnc" | "tokenVersion" | "tokenExpiresAt" | "status">;
type Patch = Partial<Omit<ConnectionRow, "id" | "workspaceId" | "integration" | "tokenVersion" | "refreshLockOwner" | "refreshLockUntil">>;

export const connectionsStore = {
  async get(c: Ctx, workspaceId: string, connectionId: string): Promise<ConnectionRow | undefined> {
    const { connections } = c.t;
    return first(
      c.h
        .select()
        .from(connections)
        .where(and(eq(connections.id, connectionId), eq(connections.workspaceId, workspaceId)))
        .limit(1),
    );
  },

  /** By id alone (runner, ingress, OAuth callback: the workspace is already known to be right). */
  async getById(c: Ctx, connectionId: string): Promise<ConnectionRow | undefined> {
    const { connections } = c.t;
    return first(c.h.select().from(connections).where(eq(connections.id, connectionId)).limit(1));
  },

  /** Oldest first. */
  async list(c: Ctx, workspaceId: string): Promise<ConnectionRow[]> {
    const { connections } = c.t;
    return c.h.select().from(connections).where(eq(connections.workspaceId, workspaceId)).orderBy(asc(connections.createdAt), asc(connections.id));
  },

  /** Those of `ids` that are connections of the workspace. */
  async getMany(c: Ctx, workspaceId: string, ids: string[]): Promise<ConnectionRow[]> {
    if (!ids.length) return [];
    const { connections } = c.t;
    return c.h
      .select()
      .from(connections)
      .where(and(eq(connections.workspaceId, workspaceId), inArray(connections.id, ids)));
  },

  async insert(c: Ctx, row: ConnectionRow): Promise<void> {
    await c.h.insert(c.t.connections).values(row);
  },

  /** Settings, name, status, state; `workspaceId` additionally guards the update. */
  async update(c: Ctx, connectionId: string, patch: Patch, workspaceId?: string): Promise<void> {
    const { connections } = c.t;
    await c.h
      .update(connections)
      .set(patch)
      .where(workspaceId ? and(eq(connections.id, connectionId), eq(connections.workspaceId, workspaceId)) : eq(connections.id, connectionId));
  },

  async delete(c: Ctx, connectionId: string): Promise<void> {
    const { connections } = c.t;
    await c.h.delete(connections).where(eq(connections.id, connectionId));
  },

  /** Merges `patch` into the integration state (read and write under the row lock: concurrent merges all land). */
  async mergeState(c: Ctx, connectionId: string, patch: Record<string, unknown>, at: string): Promise<void> {
    const { connections } = c.t;
    await c.tx(async (x) => {
      const cur = await first(
        x.h
          .update(connections)
          .set({ state: sql`${connections.state}` })
          .where(eq(connections.id, connectionId))
          .returning({ state: connections.state }),
      );
      if (!cur) return;
      await x.h
        .update(connections)
        .set({ state: { ...(cur.state ?? {}), ...patch }, updatedAt: at })
        .where(eq(connections.id, connectionId));
    });
  },

  /** Stores the tokens of a completed authorisation (the token version is bumped in the UPDATE). */
  async setAuthorized(
    c: Ctx,
    connectionId: string,
    v: Pick<ConnectionRow, "tokensEnc" | "tokenExpiresAt" | "state" | "status" | "statusMessage" | "updatedAt">,
  ): Promise<void> {
    const { connections } = c.t;
    await c.h
      .update(connections)
      .set({ ...v, tokenVersion: sql`${connections.tokenVersion} + 1` })
      .where(eq(connections.id, connectionId));
  },

  async tokenState(c: Ctx, connectionId: string): Promise<TokenState | undefined> {
    const { connections: t } = c.t;
    return first(
      c.h
        .select({ tokensEnc: t.tokensEnc, tokenVersion: t.tokenVersion, tokenExpiresAt: t.tokenExpiresAt, status: t.status })
        .from(t)
        .where(eq(t.id, connectionId))
        .limit(1),
    );
  },

  /** Takes the refresh lease when it is free or expired (epoch ms); true for exactly one of concurrent callers. */
  async acquireRefreshLock(c: Ctx, connectionId: string, owner: string, now: number, until: number): Promise<boolean> {
    const { connections: t } = c.t;
    const rows = await c.h
      .update(t)
      .set({ refreshLockOwner: owner, refreshLockUntil: until })
      .where(and(eq(t.id, connectionId), or(isNull(t.refreshLockOwner), lt(t.refreshLockUntil, now))))
      .returning({ id: t.id });
    return rows.length > 0;
  },

  async releaseRefreshLock(c: Ctx, connectionId: string, owner: string): Promise<void> {
    const { connections: t } = c.t;
    await c.h
      .update(t)
      .set({ refreshLockOwner: null, refreshLockUntil: null })
      .where(and(eq(t.id, connectionId), eq(t.refreshLockOwner, owner)));
  },

  /**
   * Stores a refreshed token pair only if the version is still `seenVersion` and `owner` holds the
   * lease (compare-and-set in the UPDATE); bumps the version. False when another write came first.
   */
  async saveRefreshedTokens(
    c: Ctx,
    connectionId: string,
    owner: string,
    seenVersion: number,
    v: { tokensEnc: string; tokenExpiresAt: number | null; updatedAt: string },
  ): Promise<boolean> {
    const { connections: t } = c.t;
    const rows = await c.h
      .update(t)
      .set({ ...v, tokenVersion: sql`${t.tokenVersion} + 1` })
      .where(and(eq(t.id, connectionId), eq(t.tokenVersion, seenVersion), eq(t.refreshLockOwner, owner)))
      .returning({ id: t.id });
    return rows.length > 0;
  },

  async insertOAuthState(c: Ctx, row: OAuthStateRow): Promise<void> {
    await c.h.insert(c.t.oauthStates).values(row);
  },

  /** Consumes an authorisation request of this user (deleted as it is read: usable once). */
  async takeOAuthState(c: Ctx, state: string, userId: string): Promise<OAuthStateRow | undefined> {
    const { oauthStates: o } = c.t;
    return first(
      c.h
        .delete(o)
        .where(and(eq(o.state, state), eq(o.userId, userId)))
        .returning(),
    );
  },
};
