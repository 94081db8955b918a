/**
 * The PostgreSQL backend (scale-out mode): a node-postgres pool with drizzle over the derived tables.
 *
 * - 64-bit integers come back as JS numbers (epoch milliseconds and counters stay below 2^53).
 * - Every connection sets statement and idle-in-transaction timeouts, and TCP keep-alive, so a
 *   blackholed server surfaces as an error instead of a hang; a connection lost while checked out
 *   surfaces at its next query, never as a process-killing 'error' event.
 * - Migrations run under a session advisory lock: many processes may start at once.
 * - A transaction whose COMMIT was sent and got no reply (a read timeout, the connection lost) may
 *   have committed: it fails with CommitOutcomeUnknownError, never with an error that reads as
 *   "rolled back" (a door must not answer "not stored" for it; server/webhooks/deliver.ts).
 */
import path from "node:path";
import pg from "pg";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import type { Backend, Handle, Tables } from "../backend";
import { pgSchema } from "./schema";
import { CommitOutcomeUnknownError } from "../commit-outcome";
import { pgConnectProblem, pgTarget } from "./connect-problem";

const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === 20) return (v: string) => (v === null ? null : Number(v)); // int8
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (pg.types.getTypeParser as any)(oid, format);
  },
};

export interface PgOptions {
  /** Pool size (per process); see the README's connection budget. */
  max?: number;
  /** Server-side statement_timeout (default 30 s). */
  statementTimeoutMs?: number;
  /** How long the client waits for an answer before giving up on a query (default statement timeout + 5 s): bounds a blackholed server. */
  queryTimeoutMs?: number;
  /** Opening a connection, and waiting for a free one in the pool (default 5 s). */
  connectTimeoutMs?: number;
  migrationsFolder?: string;
  migrate?: boolean;
  applicationName?: string;
}

export interface PgBackend extends Backend {
  readonly dialect: "postgres";
  /** The pool, for the PostgreSQL implementations in db/pg only. */
  readonly pool: pg.Pool;
}

const MIGRATION_LOCK = 7_420_117;

export function defaultPgMigrationsFolder(): string {
  return path.join(process.cwd(), "db", "migrations-pg");
}

export async function openPgBackend(url: string, options: PgOptions = {}): Promise<PgBackend> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
    query_timeout: options.queryTimeoutMs ?? (options.statementTimeoutMs ?? 30_000) + 5000,
    idle_in_transaction_session_timeout: 60_000,
    application_name: options.applicationName ?? "conveyor",
    types,
  });
  // A broken idle client must not crash the process; the pool replaces it.
  pool.on("error", () => undefined);
  // Nor a checked-out client that loses its connection between two queries (the sweeper's leadership
  // connection, a transaction between statements): without a listener its 'error' event is thrown and
  // kills the process (found by the chaos suite: PostgreSQL stopped -m immediate). Its next query
  // fails instead, and the holder releases it as broken.
  pool.on("connect", (client) => client.on("error", () => undefined));
  const db = drizzle(pool, { schema: pgSchema, casing: "snake_case" });
  const handle = db as unknown as Handle;
  if (options.migrate !== false) {
    const client = await pool.connect().catch(async (e: unknown) => {
      await pool.end().catch(() => undefined);
      throw pgConnectProblem(url, e);
    });
    try {
      await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
      try {
        await migrate(drizzle(client, { casing: "snake_case" }), { migrationsFolder: options.migrationsFolder ?? defaultPgMigrationsFolder() });
      } catch (e) {
        // drizzle wraps the server's words ("Failed query: …"); its cause says what PostgreSQL refused.
        throw pgConnectProblem(url, (e as { cause?: unknown }).cause ?? e, "apply the migrations to");
      } finally {
        await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]);
      }
    } finally {
      client.release();
    }
  }
  return {
    dialect: "postgres",
    target: `PostgreSQL at ${pgTarget(url)} (DATABASE_URL)`,
    t: pgSchema as unknown as Tables,
    pool,
    read: (fn) => fn(handle),
    tx: (fn) => classifiedTx(pool, fn),
    async ping() {
      await pool.query("select 1");
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async close() {
      await pool.end();
    },
  };
}

/** An error PostgreSQL sent (somewhere in the cause chain of drizzle's wrapper): the server answered, so its outcome is known. */
export function fromServer(e: unknown): boolean {
  for (let x = e, i = 0; x && i < 5; x = (x as { cause?: unknown }).cause, i++) if (x instanceof pg.DatabaseError) return true;
  return false;
}

/**
 * What to release a connection with after `e`: nothing when the server sent the error (the
 * connection is usable), else `e` (a read timeout, a dropped connection: the server may not be
 * listening, so the connection is dropped, which also ends its transaction on the server).
 */
export function brokenBy(e: unknown): Error | undefined {
  return fromServer(e) ? undefined : (e as Error);
}

/** drizzle over one checked-out connection, kept per connection (the pool reuses them). */
const onClient = new WeakMap<pg.PoolClient, { transaction<R>(f: (tx: unknown) => Promise<R>): Promise<R> }>();

/**
 * drizzle's transaction (BEGIN, the body, COMMIT; ROLLBACK on any failure) on a connection this
 * function checks out and releases itself, with the failures of the COMMIT itself told apart: once
 * the body is done, a failure the server did not send (the reply to COMMIT lost, so the ROLLBACK
 * after it fails too) leaves the outcome unknown. drizzle's own pool transaction never released a
 * connection whose BEGIN failed (a connection that died as PostgreSQL stopped): each such failure
 * took one connection out of the pool for good, until the process was restarted. A connection that
 * failed without the server's answer is released as broken, so the pool drops it.
 */
async function classifiedTx<T>(pool: pg.Pool, fn: (h: Handle) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  let bodyDone = false;
  try {
    let db = onClient.get(client);
    if (!db) {
      db = drizzle(client, { schema: pgSchema, casing: "snake_case" });
      onClient.set(client, db);
    }
    return await db.transaction(async (tx) => {
      const out = await fn(tx as unknown as Handle);
      bodyDone = true;
      return out;
    });
  } catch (e) {
    broken = brokenBy(e);
    if (bodyDone && broken) throw new CommitOutcomeUnknownError(`the transaction's COMMIT got no reply: ${(e as Error).message}`, { cause: e });
    throw e;
  } finally {
    client.release(broken);
  }
}
