/**
 * Timestamped webhook signatures already accepted (replay protection, docs/security.md "Webhook
 * signatures"), for the task intake's transaction and maintenance. The run engine's ingest writes the
 * same rows inside its own commit (db/pg/ingest.ts, db/sqlite/engine.ts).
 */
import { sql } from "drizzle-orm";
import type { Ctx } from "../store-kit";

export const webhookSignaturesStore = {
  /**
   * Marks a timestamped webhook signature used (inside the transaction that stores its delivery): false
   * when the intake has it already (a replay).
   */
  async record(c: Ctx, d: { intakeId: string; signature: string; expiresAt: number }): Promise<boolean> {
    const { webhookSignatures } = c.t;
    const rows = await c.h.insert(webhookSignatures).values(d).onConflictDoNothing().returning({ s: webhookSignatures.signature });
    return rows.length === 1;
  },

  /** Forgets used signatures that expired before `beforeMs`, in chunks; returns how many. */
  async prune(c: Ctx, beforeMs: number, chunk = 2000): Promise<number> {
    const { webhookSignatures: w } = c.t;
    let removed = 0;
    for (;;) {
      const gone = await c.h
        .delete(w)
        .where(
          sql`(${w.intakeId}, ${w.signature}) in (select ${w.intakeId}, ${w.signature} from ${w} where ${w.expiresAt} < ${beforeMs} limit ${chunk})`,
        )
        .returning({ s: w.signature });
      removed += gone.length;
      if (gone.length < chunk) return removed;
    }
  },

};
