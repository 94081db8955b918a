/**
 * Opens the configured backend and its store: a PostgreSQL URL selects the scale-out backend,
 * anything else is a SQLite file path. Migrations are applied on open.
 */
import { isPostgresUrl, type Backend } from "./backend";
import { openDb, type Db } from "./client";
import { openPgBackend, type PgOptions } from "./pg/backend";
import { startCheckpointer } from "./sqlite/checkpointer";
import { sqliteBackend } from "./sqlite/backend";
import { sqliteEngine } from "./sqlite/engine";
import { embeddedQueue } from "./sqlite/queue";
import type { WorkQueue } from "./queue/types";
import { createStore, type Store } from "./store";

export interface OpenedStorage {
  store: Store;
  backend: Backend;
  /** The embedded queue (SQLite); scale-out mode opens BullMQ separately (db/queue/open.ts). */
  queue?: WorkQueue;
  /** The SQLite connection (embedded mode only). */
  sqlite?: Db;
}

export interface OpenStorageOptions {
  synchronous?: "NORMAL" | "FULL";
  /** SQLite: checkpoint the WAL on a background thread (server processes). */
  checkpoint?: boolean;
  pg?: PgOptions;
  migrate?: boolean;
}

export async function openStorage(urlOrPath: string, opts: OpenStorageOptions = {}): Promise<OpenedStorage> {
  if (isPostgresUrl(urlOrPath)) {
    const backend = await openPgBackend(urlOrPath, { ...opts.pg, migrate: opts.migrate });
    const { pgEngine } = await import("./pg/engine");
    return { store: createStore(backend, pgEngine(backend)), backend };
  }
  const sqlite = openDb(urlOrPath, { synchronous: opts.synchronous, migrate: opts.migrate });
  const backend = sqliteBackend(sqlite, opts.checkpoint ? startCheckpointer(sqlite) : null);
  return { store: createStore(backend, sqliteEngine(sqlite)), backend, sqlite, queue: embeddedQueue(sqlite) };
}
