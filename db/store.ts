/**
 * The storage seam: every read and write of Conveyor's state goes through a `Store`, whatever the
 * engine (SQLite embedded, PostgreSQL in scale-out mode). Services call `store.<domain>.<op>(…)`;
 * several writes that must commit together run in `store.tx(async (s) => { … })`, where `s` is the
 * same facade bound to the open transaction.
 *
 * Domain stores written once for both engines live in db/stores/*; the hot paths with
 * engine-specific SQL live in db/sqlite/* and db/pg/*.
 */
import type { Backend, Dialect, PoolStats } from "./backend";
import type { RunEngine } from "./engine";
import { createOutage } from "./outage";
import { bindDomain, makeCtx, type Bound, type Ctx } from "./store-kit";
import { apiKeysStore } from "./stores/api-keys";
import { auditStore } from "./stores/audit";
import { automationsStore } from "./stores/automations";
import { connectionsStore } from "./stores/connections";
import { idempotencyStore } from "./stores/idempotency";
import { intakesStore } from "./stores/intakes";
import { linesStore } from "./stores/lines";
import { memoriesStore } from "./stores/memories";
import { metricsStore, runsByStatusScan } from "./stores/metrics";
import { migrationsStore } from "./stores/migrations";
import { organizationsStore } from "./stores/organizations";
import { rateLimitsStore } from "./stores/rate-limits";
import { registrationsStore } from "./stores/registrations";
import { runsStore } from "./stores/runs";
import { schedulesStore } from "./stores/schedules";
import { settingsStore } from "./stores/settings";
import { tasksStore } from "./stores/tasks";
import { usageStore } from "./stores/usage";
import { usersStore } from "./stores/users";
import { versionsStore } from "./stores/versions";
import { webhookSignaturesStore } from "./stores/webhook-signatures";
import { workspacesStore } from "./stores/workspaces";

const domains = {
  apiKeys: apiKeysStore,
  audit: auditStore,
  automations: automationsStore,
  connections: connectionsStore,
  idempotency: idempotencyStore,
  intakes: intakesStore,
  lines: linesStore,
  memories: memoriesStore,
  metrics: metricsStore,
  migrations: migrationsStore,
  organizations: organizationsStore,
  rateLimits: rateLimitsStore,
  registrations: registrationsStore,
  runs: runsStore,
  schedules: schedulesStore,
  settings: settingsStore,
  tasks: tasksStore,
  usage: usageStore,
  users: usersStore,
  versions: versionsStore,
  webhookSignatures: webhookSignaturesStore,
  workspaces: workspacesStore,
};

type Domains = { [K in keyof typeof domains]: Bound<(typeof domains)[K]> };

export interface Store extends Domains {
  readonly dialect: Dialect;
  /** The executor's and the ingest's hot paths (engine-specific). */
  readonly engine: RunEngine;
  /** Runs `fn` with a store bound to one transaction (joins the current one when already inside). */
  tx<T>(fn: (s: Store) => Promise<T>): Promise<T>;
  /** Runs `fn` once the current transaction has committed (at once outside a transaction); e.g. publishing queued work. */
  onCommit(fn: () => void): void;
  /** Throws when the database cannot be reached. */
  ping(): Promise<void>;
  /** This process's view of a database outage, shared by its background loops (db/outage.ts). */
  readonly outage: Outage;
  /** The connection pool's figures (PostgreSQL), null on SQLite. */
  poolStats(): PoolStats | null;
  close(): Promise<void>;
}

export type Outage = ReturnType<typeof createOutage>;
const outages = new WeakMap<Backend, Outage>();
function outageOf(backend: Backend): Outage {
  let o = outages.get(backend);
  if (!o) outages.set(backend, (o = createOutage({ target: backend.target, ping: () => backend.ping() })));
  return o;
}

function build(
  backend: Backend,
  engine: RunEngine,
  run: <T>(fn: (c: Ctx) => Promise<T>) => Promise<T>,
  txStore: ((fn: (s: Store) => Promise<unknown>) => Promise<unknown>) | null,
  onCommit: (fn: () => void) => void,
): Store {
  const s = {
    dialect: backend.dialect,
    engine,
    onCommit,
    ping: () => backend.ping(),
    outage: outageOf(backend),
    poolStats: () => backend.poolStats?.() ?? null,
    close: () => backend.close(),
  } as Store;
  for (const [name, domain] of Object.entries(domains)) (s as unknown as Record<string, unknown>)[name] = bindDomain(domain, run);
  s.tx = <T>(fn: (st: Store) => Promise<T>): Promise<T> =>
    txStore ? (txStore(fn as (st: Store) => Promise<unknown>) as Promise<T>) : runTx(backend, engine, fn);
  return s;
}

async function runTx<T>(backend: Backend, engine: RunEngine, fn: (s: Store) => Promise<T>): Promise<T> {
  const after: Array<() => void> = [];
  const out = await backend.tx((h) => {
    const ctx = makeCtx(backend, h, true);
    let self: Store;
    // eslint-disable-next-line prefer-const
    self = build(
      backend,
      engine,
      (f) => f(ctx),
      (f) => f(self),
      (cb) => after.push(cb),
    );
    return fn(self);
  });
  for (const cb of after) cb();
  return out;
}

/** The process-wide store over a backend: each call runs on its own (no transaction). */
export function createStore(backend: Backend, engine: RunEngine): Store {
  const store = build(
    backend,
    engine,
    (fn) => backend.read((h) => fn(makeCtx(backend, h, false))),
    null,
    (cb) => cb(),
  );
  // Reads that grow with the history go to the backend's background thread when it has one (SQLite),
  // outside the connection's gate: store calls, group commits and the event loop go on meanwhile.
  const scan = backend.scan?.bind(backend);
  if (scan) store.metrics = { ...store.metrics, runsByStatus: () => runsByStatusScan(scan) };
  return store;
}
