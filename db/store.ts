/**
 * The storage seam: every read and write of Conveyor's state goes through a `Store`, whatever the
 * engine (SQLite embedded, PostgreSQL in scale-out mode). Services call `store.<domain>.<op>(…)`;
 * several writes that must commit together run in `store.tx(async (s) => { … })`, where `s` is the
 * same facade bound to the open transaction.
 *
 * Domain stores written once for both engines live in db/stores/*; the hot paths with
 * engine-specific SQL live in db/sqlite/* and db/pg/*.
 */
import type { Backend, Dialect } from "./backend";
import { bindDomain, makeCtx, type Bound, type Ctx } from "./store-kit";
import { apiKeysStore } from "./stores/api-keys";
import { auditStore } from "./stores/audit";
import { idempotencyStore } from "./stores/idempotency";
import { linesStore } from "./stores/lines";
import { metricsStore } from "./stores/metrics";
import { migrationsStore } from "./stores/migrations";
import { organizationsStore } from "./stores/organizations";
import { rateLimitsStore } from "./stores/rate-limits";
import { usageStore } from "./stores/usage";
import { usersStore } from "./stores/users";
import { workspacesStore } from "./stores/workspaces";

const domains = {
  apiKeys: apiKeysStore,
  audit: auditStore,
  idempotency: idempotencyStore,
  lines: linesStore,
  metrics: metricsStore,
  migrations: migrationsStore,
  organizations: organizationsStore,
  rateLimits: rateLimitsStore,
  usage: usageStore,
  users: usersStore,
  workspaces: workspacesStore,
};

type Domains = { [K in keyof typeof domains]: Bound<(typeof domains)[K]> };

export interface Store extends Domains {
  readonly dialect: Dialect;
  /** Runs `fn` with a store bound to one transaction (joins the current one when already inside). */
  tx<T>(fn: (s: Store) => Promise<T>): Promise<T>;
  /** Throws when the database cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

function build(backend: Backend, run: <T>(fn: (c: Ctx) => Promise<T>) => Promise<T>, txStore: ((fn: (s: Store) => Promise<unknown>) => Promise<unknown>) | null): Store {
  const s = {
    dialect: backend.dialect,
    ping: () => backend.ping(),
    close: () => backend.close(),
  } as Store;
  for (const [name, domain] of Object.entries(domains)) (s as unknown as Record<string, unknown>)[name] = bindDomain(domain, run);
  s.tx = <T>(fn: (st: Store) => Promise<T>): Promise<T> =>
    txStore ? (txStore(fn as (st: Store) => Promise<unknown>) as Promise<T>) : backend.tx((h) => fn(txBound(backend, makeCtx(backend, h, true))));
  return s;
}

function txBound(backend: Backend, ctx: Ctx): Store {
  let self: Store;
  // eslint-disable-next-line prefer-const
  self = build(backend, (fn) => fn(ctx), (fn) => fn(self));
  return self;
}

/** The process-wide store over a backend: each call runs on its own (no transaction). */
export function createStore(backend: Backend): Store {
  return build(backend, (fn) => backend.read((h) => fn(makeCtx(backend, h, false))), null);
}
