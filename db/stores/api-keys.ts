/** Organization API keys (stored as SHA-256 hashes; the plaintext never reaches the database). */
import { and, desc, eq, isNull, lt, or } from "drizzle-orm";
import { first, type Ctx } from "../store-kit";
import type { ApiKeyRow } from "../types";

export const apiKeysStore = {
  async insert(c: Ctx, row: ApiKeyRow): Promise<void> {
    await c.h.insert(c.t.apiKeys).values(row);
  },

  /** Newest first. */
  async list(c: Ctx, organizationId: string): Promise<ApiKeyRow[]> {
    const { apiKeys } = c.t;
    return c.h.select().from(apiKeys).where(eq(apiKeys.organizationId, organizationId)).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  },

  /** A key of this organization (undefined for another organization's key). */
  async get(c: Ctx, organizationId: string, keyId: string): Promise<ApiKeyRow | undefined> {
    const { apiKeys } = c.t;
    return first(
      c.h
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.id, keyId), eq(apiKeys.organizationId, organizationId)))
        .limit(1),
    );
  },

  /** The key whose hash this is (unique index). */
  async findByHash(c: Ctx, hash: string): Promise<ApiKeyRow | undefined> {
    const { apiKeys } = c.t;
    return first(c.h.select().from(apiKeys).where(eq(apiKeys.hash, hash)).limit(1));
  },

  /** Revokes the key unless it already is: true for exactly one caller however many race. */
  async revoke(c: Ctx, keyId: string, at: string): Promise<boolean> {
    const { apiKeys } = c.t;
    const rows = await c.h
      .update(apiKeys)
      .set({ revokedAt: at })
      .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    return rows.length === 1;
  },

  /**
   * Sets last-used to `at` when it is unset or older than `staleBefore` (ISO timestamps compare as
   * strings): keys used many times a second by many processes write at most once per interval.
   */
  async touchLastUsed(c: Ctx, keyId: string, at: string, staleBefore: string): Promise<boolean> {
    const { apiKeys } = c.t;
    const rows = await c.h
      .update(apiKeys)
      .set({ lastUsedAt: at })
      .where(and(eq(apiKeys.id, keyId), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, staleBefore))))
      .returning({ id: apiKeys.id });
    return rows.length === 1;
  },
};
