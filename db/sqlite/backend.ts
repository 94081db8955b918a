/**
 * The SQLite backend: one better-sqlite3 connection (db/client.ts) shared by the process.
 *
 * better-sqlite3 is synchronous and its transactions cannot span an `await`, while store code is
 * async (it must also run on PostgreSQL). So transactions are opened by hand (`BEGIN IMMEDIATE`)
 * and a gate keeps every other use of the connection out until COMMIT: store calls queue on it, and
 * the synchronous hot paths (group commits, claims) check `gate.held` and retry a moment later.
 * Taking the write lock never waits inside SQLite (that would block the event loop while another
 * process holds it): BEGIN is tried with busy_timeout 0 and retried every 2 ms up to the timeout.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Backend, Handle, Tables } from "../backend";
import { closeDb, type Db } from "../client";
import * as schema from "../schema";
import type { Checkpointer } from "./checkpointer";

export class Gate {
  held = false;
  private waiters: Array<() => void> = [];
  async enter(): Promise<void> {
    while (this.held) await new Promise<void>((r) => this.waiters.push(r));
    this.held = true;
  }
  leave(): void {
    this.held = false;
    this.waiters.shift()?.();
  }
}

const gates = new WeakMap<Db, Gate>();

/** The gate of a connection (the hot paths in db/sqlite check it before starting a transaction). */
export function gateOf(db: Db): Gate {
  let g = gates.get(db);
  if (!g) {
    g = new Gate();
    gates.set(db, g);
  }
  return g;
}

const epochs = new WeakMap<Db, { n: number }>();

/**
 * Changes whenever this process may have changed rows through the store on a connection (bumped when
 * every store call and test SQL statement starts and ends): the engine's in-memory caches of store-owned rows
 * (intake heads) compare it, and `PRAGMA data_version` for changes committed by other connections.
 */
export function epochOf(db: Db): { n: number } {
  let e = epochs.get(db);
  if (!e) {
    e = { n: 0 };
    epochs.set(db, e);
  }
  return e;
}

export interface SqliteBackend extends Backend {
  readonly dialect: "sqlite";
  /** The raw connection, for the SQLite implementations in db/sqlite only. */
  readonly db: Db;
}

export function sqliteBackend(db: Db, checkpointer: Pick<Checkpointer, "all" | "stop"> | null = null): SqliteBackend {
  const gate = gateOf(db);
  const inside = new AsyncLocalStorage<{ inTx: boolean }>();
  const client = db.$client;
  const busyTimeout = (client.pragma("busy_timeout", { simple: true }) as number) || 5000;
  const handle = db as unknown as Handle;

  const begin = async () => {
    const started = Date.now();
    for (;;) {
      client.pragma("busy_timeout = 0");
      try {
        client.exec("BEGIN IMMEDIATE");
        return;
      } catch (e) {
        if ((e as { code?: string }).code !== "SQLITE_BUSY" || Date.now() - started > busyTimeout) throw e;
      } finally {
        client.pragma(`busy_timeout = ${busyTimeout}`);
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  };

  const epoch = epochOf(db);
  const guarded = async <T>(inTx: boolean, fn: () => Promise<T>): Promise<T> => {
    await gate.enter();
    epoch.n++;
    try {
      return await inside.run({ inTx }, fn);
    } finally {
      epoch.n++; // after COMMIT or ROLLBACK: nothing read meanwhile stays cached
      gate.leave();
    }
  };

  const transaction = async <T>(fn: (h: Handle) => Promise<T>): Promise<T> => {
    await begin();
    try {
      const out = await inside.run({ inTx: true }, () => fn(handle));
      client.exec("COMMIT");
      return out;
    } catch (e) {
      if (client.inTransaction) client.exec("ROLLBACK");
      throw e;
    }
  };

  return {
    dialect: "sqlite",
    target: `the SQLite database ${client.name}`,
    t: schema as Tables,
    db,
    // Inside a call that already holds the gate (a store calling another store): join it.
    read: (fn) => (inside.getStore() ? fn(handle) : guarded(false, () => fn(handle))),
    tx: (fn) => {
      const cur = inside.getStore();
      if (cur?.inTx) return fn(handle);
      if (cur) return transaction(fn);
      return guarded(true, () => transaction(fn));
    },
    ...(checkpointer ? { scan: <T>(sql: string, params?: unknown[]) => checkpointer.all<T>(sql, params) } : {}),
    async ping() {
      client.prepare("select 1").get();
    },
    async close() {
      await checkpointer?.stop();
      closeDb(db);
    },
  };
}
