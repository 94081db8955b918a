/**
 * What automations remember between runs (db/schema/memories.ts): one value per (workspace, scope,
 * key), invisible once expired. `set` is one upsert; `prune` deletes expired rows in small batches.
 */
import { and, count, eq, gt, inArray, lte, sql } from "drizzle-orm";
import { first, type Ctx } from "../store-kit";

export interface MemoryEntry {
  value: unknown;
  storedBy: { runId: string; nodeId: string; automationId: string };
  storedAt: string;
  expiresAt: string;
}

export const memoriesStore = {
  /** The live entry of `key` (undefined when absent or expired at `nowIso`). */
  async get(c: Ctx, workspaceId: string, scope: string, key: string, nowIso: string): Promise<MemoryEntry | undefined> {
    const t = c.t.memories;
    return first(
      c.h
        .select({ value: t.value, storedBy: t.storedBy, storedAt: t.storedAt, expiresAt: t.expiresAt })
        .from(t)
        .where(and(eq(t.workspaceId, workspaceId), eq(t.scope, scope), eq(t.key, key), gt(t.expiresAt, nowIso)))
        .limit(1),
    );
  },

  /**
   * Stores `value` under `key` (replacing what was there). A new key is refused (false) once the
   * workspace holds `maxEntries` live entries; replacing an existing key always succeeds.
   */
  async set(
    c: Ctx,
    e: { workspaceId: string; scope: string; key: string; maxEntries: number } & MemoryEntry,
  ): Promise<{ stored: boolean; replaced: boolean }> {
    const t = c.t.memories;
    return c.tx(async (c2) => {
      const existing = await first(
        c2.h
          .select({ expiresAt: t.expiresAt })
          .from(t)
          .where(and(eq(t.workspaceId, e.workspaceId), eq(t.scope, e.scope), eq(t.key, e.key)))
          .limit(1),
      );
      const replaced = !!existing && existing.expiresAt > e.storedAt;
      if (!existing) {
        const [row] = await c2.h
          .select({ n: count() })
          .from(t)
          .where(and(eq(t.workspaceId, e.workspaceId), gt(t.expiresAt, e.storedAt)));
        if ((row?.n ?? 0) >= e.maxEntries) return { stored: false, replaced: false };
      }
      const values = { value: e.value, storedBy: e.storedBy, storedAt: e.storedAt, expiresAt: e.expiresAt };
      await c2.h
        .insert(t)
        .values({ workspaceId: e.workspaceId, scope: e.scope, key: e.key, ...values })
        .onConflictDoUpdate({ target: [t.workspaceId, t.scope, t.key], set: values });
      return { stored: true, replaced };
    });
  },

  /** Deletes `key`; true when a live entry was deleted. */
  async delete(c: Ctx, workspaceId: string, scope: string, key: string, nowIso: string): Promise<boolean> {
    const t = c.t.memories;
    const rows = await c.h
      .delete(t)
      .where(and(eq(t.workspaceId, workspaceId), eq(t.scope, scope), eq(t.key, key)))
      .returning({ expiresAt: t.expiresAt });
    return rows.some((r) => r.expiresAt > nowIso);
  },

  /** Deletes up to `limit` entries expired at `nowIso`; returns how many. */
  async prune(c: Ctx, nowIso: string, limit = 1000): Promise<number> {
    const t = c.t.memories;
    const doomed = await c.h
      .select({ workspaceId: t.workspaceId, scope: t.scope, key: t.key })
      .from(t)
      .where(lte(t.expiresAt, nowIso))
      .limit(limit);
    if (!doomed.length) return 0;
    let n = 0;
    // Grouped by workspace and scope: one statement per group, keys by IN.
    const groups = new Map<string, { workspaceId: string; scope: string; keys: string[] }>();
    for (const d of doomed) {
      const g = groups.get(`${d.workspaceId}\u0000${d.scope}`) ?? { workspaceId: d.workspaceId, scope: d.scope, keys: [] };
      g.keys.push(d.key);
      groups.set(`${d.workspaceId}\u0000${d.scope}`, g);
    }
    for (const g of groups.values()) {
      const rows = await c.h
        .delete(t)
        .where(and(eq(t.workspaceId, g.workspaceId), eq(t.scope, g.scope), inArray(t.key, g.keys), lte(t.expiresAt, nowIso)))
        .returning({ key: t.key });
      n += rows.length;
    }
    return n;
  },

  /** Live entries of a workspace (tests, diagnostics). */
  async countLive(c: Ctx, workspaceId: string, nowIso: string): Promise<number> {
    const t = c.t.memories;
    const [row] = await c.h
      .select({ n: sql<number>`count(*)` })
      .from(t)
      .where(and(eq(t.workspaceId, workspaceId), gt(t.expiresAt, nowIso)));
    return Number(row?.n ?? 0);
  },
};
