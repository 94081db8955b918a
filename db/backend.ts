/**
 * The storage backend: one of two engines behind the same neutral interface.
 *
 * - `sqlite` (embedded default): one better-sqlite3 connection per process, WAL.
 * - `postgres` (scale-out mode): a node-postgres pool.
 *
 * Store code (db/stores/*) is written once against `Handle`, drizzle's query builder typed as the
 * async flavour of the SQLite schema in `db/schema/`; on PostgreSQL the same calls run on the derived
 * tables (db/pg/derive.ts) with the same property names. Rules that keep one body valid on both:
 * await builders (never `.all()/.get()/.run()`), use `.returning()` to learn what changed, take
 * tables from `backend.t` (never import them), and keep dialect SQL in `db/sqlite/*` and `db/pg/*`.
 * Nothing outside `db/` sees a Handle (lint rule in eslint.config.mjs).
 */
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import type * as schema from "./schema";

export type Tables = typeof schema;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Handle = BaseSQLiteDatabase<"async", any, Tables>;
export type Dialect = "sqlite" | "postgres";

export interface Backend {
  readonly dialect: Dialect;
  /** How this database is named in logs (never with a password), e.g. `PostgreSQL at db:5432/conveyor as conveyor (DATABASE_URL)`. */
  readonly target: string;
  /** The tables of this dialect, typed as the single schema source. */
  readonly t: Tables;
  /** Runs `fn` outside a transaction (each statement commits on its own). */
  read<T>(fn: (h: Handle) => Promise<T>): Promise<T>;
  /** Runs `fn` in one transaction; a throw rolls it back. Nested calls with the same handle join it. */
  tx<T>(fn: (h: Handle) => Promise<T>): Promise<T>;
  /** Throws when the database cannot be reached (readiness). */
  ping(): Promise<void>;
  /**
   * A read whose cost grows with the stored history (plain SQL valid in both dialects), run where it
   * cannot stall this process: SQLite's background thread (db/sqlite/checkpointer.ts). Absent (and on
   * PostgreSQL, whose queries never block the event loop): run it through `read`.
   */
  scan?<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Connection pool figures (PostgreSQL only; /metrics). */
  poolStats?(): PoolStats;
  close(): Promise<void>;
}

export interface PoolStats {
  /** Connections open (idle or in use). */
  total: number;
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
}

export function isPostgresUrl(url: string | undefined): boolean {
  return !!url && /^postgres(ql)?:\/\//i.test(url);
}
