/**
 * The PostgreSQL backend (scale-out mode): a node-postgres pool with drizzle over the derived tables.
 *
 * - 64-bit integers come back as JS numbers (epoch milliseconds and counters stay below 2^53).
 * - Every connection sets statement and idle-in-transaction timeouts, and TCP keep-alive, so a
 *   blackholed server surfaces as an error instead of a hang.
 * - Migrations run under a session advisory lock: many processes may start at once.
 */
import path from "node:path";
import pg from "pg";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import type { Backend, Handle, Tables } from "../backend";
import { pgSchema } from "./schema";

const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === 20) return (v: string) => (v === null ? null : Number(v)); // int8
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (pg.types.getTypeParser as any)(oid, format);
  },
};

export interface PgOptions {
  /** Pool size (per process); see docs/scale-out.md for the connection budget. */
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
  const db = drizzle(pool, { schema: pgSchema, casing: "snake_case" });
  const handle = db as unknown as Handle;
  if (options.migrate !== false) {
    const client = await pool.connect();
    try {
      await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
      try {
        await migrate(drizzle(client, { casing: "snake_case" }), { migrationsFolder: options.migrationsFolder ?? defaultPgMigrationsFolder() });
      } finally {
        await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]);
      }
    } finally {
      client.release();
    }
  }
  return {
    dialect: "postgres",
    t: pgSchema as unknown as Tables,
    pool,
    read: (fn) => fn(handle),
    tx: (fn) => db.transaction((tx) => fn(tx as unknown as Handle)),
    async ping() {
      await pool.query("select 1");
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async close() {
      await pool.end();
    },
  };
}
