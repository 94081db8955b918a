/**
 * Stored responses for `Idempotency-Key` (server/rest/idempotency.ts). A row is first a claim
 * (`status` 0, no response) taken atomically before the request runs, then holds the response;
 * the claim is what keeps two processes from running the same request twice.
 */
import { and, eq, lt, ne } from "drizzle-orm";
import { first, type Ctx } from "../store-kit";
import type { IdempotencyRow } from "../types";

/** `status` of a row whose request is still running. */
export const IDEMPOTENCY_PENDING = 0;

export type IdempotencyClaim = { kind: "claimed"; createdAt: number } | { kind: "pending"; row: IdempotencyRow } | { kind: "stored"; row: IdempotencyRow };

export interface IdempotencyRequest {
  apiKeyId: string;
  key: string;
  method: string;
  path: string;
  bodyHash: string;
  now: number;
}

export const idempotencyStore = {
  /**
   * Claims (apiKeyId, key) for a request, atomically across processes: first drops this key's row
   * when it is a stored response older than `expiredBefore` or a claim older than `staleBefore`
   * (its process died), then inserts a claim unless a row exists. Returns the claim, or the row
   * that is already there (a claim still running, or a stored response).
   */
  async claim(c: Ctx, req: IdempotencyRequest, limits: { expiredBefore: number; staleBefore: number }): Promise<IdempotencyClaim> {
    const { idempotencyKeys: t } = c.t;
    const mine = and(eq(t.apiKeyId, req.apiKeyId), eq(t.key, req.key));
    return c.tx(async (x) => {
      await x.h.delete(t).where(and(mine, ne(t.status, IDEMPOTENCY_PENDING), lt(t.createdAt, limits.expiredBefore)));
      await x.h.delete(t).where(and(mine, eq(t.status, IDEMPOTENCY_PENDING), lt(t.createdAt, limits.staleBefore)));
      const inserted = await x.h
        .insert(t)
        .values({ ...req, createdAt: req.now, status: IDEMPOTENCY_PENDING, response: "" })
        .onConflictDoNothing({ target: [t.apiKeyId, t.key] })
        .returning({ createdAt: t.createdAt });
      if (inserted.length) return { kind: "claimed", createdAt: req.now };
      const row = await first(x.h.select().from(t).where(mine).limit(1));
      if (!row) throw new Error("idempotency: the row holding this key vanished inside the transaction");
      return row.status === IDEMPOTENCY_PENDING ? { kind: "pending", row } : { kind: "stored", row };
    });
  },

  /** Stores the response of a claim taken at `claimedAt`; false when the claim is no longer ours. */
  async complete(c: Ctx, apiKeyId: string, key: string, claimedAt: number, res: { status: number; response: string }): Promise<boolean> {
    const { idempotencyKeys: t } = c.t;
    const rows = await c.h
      .update(t)
      .set(res)
      .where(and(eq(t.apiKeyId, apiKeyId), eq(t.key, key), eq(t.status, IDEMPOTENCY_PENDING), eq(t.createdAt, claimedAt)))
      .returning({ key: t.key });
    return rows.length === 1;
  },

  /** Gives a claim up (the request failed): a retry with the same key runs again. */
  async release(c: Ctx, apiKeyId: string, key: string, claimedAt: number): Promise<void> {
    const { idempotencyKeys: t } = c.t;
    await c.h.delete(t).where(and(eq(t.apiKeyId, apiKeyId), eq(t.key, key), eq(t.status, IDEMPOTENCY_PENDING), eq(t.createdAt, claimedAt)));
  },

  /** Deletes every row created before `before` (epoch ms): expired responses and long-dead claims. */
  async purgeExpired(c: Ctx, before: number): Promise<number> {
    const { idempotencyKeys: t } = c.t;
    const rows = await c.h.delete(t).where(lt(t.createdAt, before)).returning({ key: t.key });
    return rows.length;
  },
};
