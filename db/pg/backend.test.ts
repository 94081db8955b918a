/**
 * The PostgreSQL pool survives connections that die while checked out (PostgreSQL crashing or
 * restarting under a sweeper or a transaction): regression for a worker killed by an unhandled
 * 'error' event when PostgreSQL was stopped with `-m immediate` (found by the chaos suite).
 */
import { describe, expect, it } from "vitest";
import { createTestStorage, testBackend } from "../testing";
import type { PgBackend } from "./backend";
import { tryLeadership } from "./run-queue";

describe.skipIf(testBackend() !== "postgres")("PostgreSQL backend: connections lost while checked out", () => {
  it("a held connection whose server process dies fails its next query instead of crashing the process; the pool goes on", async () => {
    const storage = await createTestStorage();
    try {
      const pool = (storage.backend as PgBackend).pool;
      const lead = await tryLeadership(pool, "test:backend-crash");
      expect(lead).not.toBeNull();
      const held = await pool.connect();
      const pid = (await held.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
      const ended = new Promise<void>((resolve) =>
        (held as unknown as { connection: { once(e: string, f: () => void): void } }).connection.once("end", resolve),
      );
      // Every backend of this database but ours: the leadership connection and `held` die between queries.
      await storage.sql("select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()");
      await ended;
      await expect(held.query("select 1")).rejects.toThrow();
      held.release(true);
      expect(pid).toBeGreaterThan(0);
      // The leadership's release copes with its dead connection, and leadership can be taken again.
      await lead!.release();
      const again = await tryLeadership(pool, "test:backend-crash");
      expect(again).not.toBeNull();
      await again!.release();
      expect((await storage.sql<{ one: number }>("select 1 as one"))[0]!.one).toBe(1);
    } finally {
      await storage.close();
    }
  });
});
