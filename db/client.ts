/**
 * The database: better-sqlite3 + drizzle. The only module (with db/testing.ts) that imports
 * better-sqlite3. WAL mode, foreign keys on, busy timeout; migrations applied on open.
 */
import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import fs from "node:fs";
import path from "node:path";
import * as schema from "./schema";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export interface OpenDbOptions {
  /** Folder of drizzle-kit migrations (default: <cwd>/db/migrations). */
  migrationsFolder?: string;
  /** Skip migrations (the CLI's `migrate` command and tests that check them). */
  migrate?: boolean;
  /** synchronous pragma: NORMAL (default, durable across process crashes in WAL) or FULL. */
  synchronous?: "NORMAL" | "FULL";
}

export function defaultMigrationsFolder(): string {
  return path.join(process.cwd(), "db", "migrations");
}

/** Opens (creating when absent) a SQLite file and applies pending migrations. */
export function openDb(file: string, options: OpenDbOptions = {}): Db {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma(`synchronous = ${options.synchronous ?? "NORMAL"}`);
  // Bounded WAL: checkpoint automatically every ~1000 pages and truncate the WAL file when idle.
  sqlite.pragma("wal_autocheckpoint = 1000");
  sqlite.pragma("journal_size_limit = 67108864");
  const db = drizzle(sqlite, { schema, casing: "snake_case" }) as Db;
  if (options.migrate !== false) runMigrations(db, options.migrationsFolder);
  return db;
}

export function runMigrations(db: Db, migrationsFolder = defaultMigrationsFolder()): void {
  migrate(db, { migrationsFolder });
}

/** Names of applied migrations (for the health endpoint). */
export function appliedMigrationCount(db: Db): number {
  const row = db.$client.prepare("select count(*) as n from sqlite_master where type='table' and name='__drizzle_migrations'").get() as { n: number };
  if (!row.n) return 0;
  return (db.$client.prepare("select count(*) as n from __drizzle_migrations").get() as { n: number }).n;
}

export function pendingMigrationCount(db: Db, migrationsFolder = defaultMigrationsFolder()): number {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, "meta", "_journal.json"), "utf8")) as {
    entries: unknown[];
  };
  return Math.max(0, journal.entries.length - appliedMigrationCount(db));
}

/** Runs `fn` in an IMMEDIATE transaction (takes the write lock up front; no deadlock upgrades). */
export function transaction<T>(db: Db, fn: (tx: Db) => T): T {
  return db.$client.transaction(() => fn(db)).immediate();
}

export function closeDb(db: Db): void {
  try {
    db.$client.pragma("wal_checkpoint(TRUNCATE)");
  } catch {
    /* closing anyway */
  }
  db.$client.close();
}

export { schema };
