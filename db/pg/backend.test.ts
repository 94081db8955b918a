/**
 * The PostgreSQL pool survives connections that die while checked out (PostgreSQL crashing or
 * restarting under a sweeper or a transaction): regression for a worker killed by an unhandled
 * 'error' event when PostgreSQL was stopped with `-m immediate` (found by the chaos suite).
 */
import { describe, expect, it } from "vitest";
import { createTestStorage, testBackend } from "../testing";
import type { PgBackend } from "./backend";
import { tryLeadership } from "./run-queue";
import { sql } from "drizzle-orm";
import { openStorage } from "../open";
import { isCommitOutcomeUnknown } from "../commit-outcome";
import { startFaultProxy } from "../../server/roles/testing/fault-proxy";
import { waitFor } from "../../server/runner/testing/wait";

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

describe.skipIf(testBackend() !== "postgres")("PostgreSQL backend: a transaction whose COMMIT reply is lost", () => {
  it("fails with CommitOutcomeUnknownError when the COMMIT was sent and not answered (it did commit), and with a plain error when the body's statement was", async () => {
    const storage = await createTestStorage();
    const url = new URL(storage.url);
    const proxy = await startFaultProxy({ port: Number(url.port) });
    url.port = String(proxy.port);
    // Through the proxy, giving up on a reply after 500 ms.
    const other = await openStorage(url.toString(), { migrate: false, pg: { max: 2, connectTimeoutMs: 300, queryTimeoutMs: 500 } });
    try {
      await storage.sql("create table outcome_probe (id text primary key)");
      const insert = (id: string, before?: () => void, after?: () => void) =>
        other.backend.tx(async (h) => {
          before?.();
          await (h as unknown as { execute(q: unknown): Promise<unknown> }).execute(sql`insert into outcome_probe (id) values (${id})`);
          after?.();
        });
      await insert("warm");

      // The body's statements answered; the COMMIT reaches PostgreSQL and its reply is swallowed.
      const lost = await insert("committed", undefined, () => proxy.set("drop-replies")).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isCommitOutcomeUnknown(lost)).toBe(true);
      expect((lost as Error).message).toContain("COMMIT got no reply");
      proxy.set("pass");
      expect(await storage.sql("select id from outcome_probe where id = 'committed'")).toHaveLength(1);

      // The body's own statement goes unanswered: no COMMIT was sent, so nothing is stored (a plain error).
      const early = await insert("never", () => proxy.set("drop-replies")).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(early).toBeInstanceOf(Error);
      expect(isCommitOutcomeUnknown(early)).toBe(false);
      proxy.set("pass");
      // PostgreSQL rolls the open transaction back once its connection is gone.
      await waitFor(
        async () => (await storage.sql("select count(*)::int as n from pg_stat_activity where state like 'idle in transaction%'"))[0]!.n === 0,
        15_000,
        "the abandoned transaction ended",
      );
      expect(await storage.sql("select id from outcome_probe where id = 'never'")).toHaveLength(0);
    } finally {
      await other.store.close();
      await proxy.close();
      await storage.close();
    }
  });
});
