/**
 * Prometheus metrics (prom-client) for `GET /metrics`. One registry per process, kept on
 * globalThis: the custom server (tsx) and Next's bundle both import this module, and both must
 * count into the same registry. Gauges that live in the database (runs by status, queue depth and
 * age, outbox) are collected at scrape time and are the same in every process (cluster-wide: take
 * `max`, not `sum`); the rest are this process's own (counted where the work happens: `sum` them
 * across processes). A database that does not answer within 2 s leaves its gauges at their last
 * value instead of failing the scrape (`conveyor_database_up` says so). Scale-out gauges (Redis,
 * sweeper, PostgreSQL pool) are registered on the first bind to such deps.
 */
import { Counter, Histogram, Registry, Gauge, collectDefaultMetrics } from "prom-client";
import type { PoolStats } from "@/db/types";
import type { AppDeps } from "../deps";
import { processRole, type ProcessRoleName } from "../roles/process-role";

export interface ConveyorMetrics {
  registry: Registry;
  webhookDeliveries: Counter<"result">;
  runsFinished: Counter<"status">;
  stepDuration: Histogram<"key" | "status">;
  upstreamErrors: Counter<"integration" | "kind">;
  apiRequests: Counter<"method" | "status">;
  expressionStops: Counter<"reason">;
  /** Where the database and queue gauges are read from at scrape time (call it right before each scrape). */
  bind(deps: Pick<AppDeps, "store"> & Partial<Pick<AppDeps, "queue">>, role?: ProcessRoleName): void;
}

const SCRAPE_DB_TIMEOUT_MS = 2000;

const KEY = Symbol.for("conveyor.metrics");
type G = typeof globalThis & { [KEY]?: ConveyorMetrics };

function create(): ConveyorMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "conveyor_process_" });
  let deps: (Pick<AppDeps, "store"> & Partial<Pick<AppDeps, "queue">>) | undefined;
  let scaleOut = false;
  let pool: PoolStats | null = null;
  let role: ProcessRoleName = "cli";
  // A database read at scrape time: undefined when it fails or is slow (the scrape goes on without it).
  // Gauges collected at once (one scrape) share a read that is still in flight.
  const inFlight = new Map<string, Promise<unknown>>();
  const fromDb = <T>(key: string, read: (d: Pick<AppDeps, "store">) => Promise<T>): Promise<T | undefined> => {
    if (!deps) return Promise.resolve(undefined);
    const pending = inFlight.get(key);
    if (pending) return pending as Promise<T | undefined>;
    let timer: NodeJS.Timeout | undefined;
    const p = Promise.race([read(deps), new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("timeout")), SCRAPE_DB_TIMEOUT_MS)))])
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(timer);
        inFlight.delete(key);
      });
    inFlight.set(key, p);
    return p;
  };
  // Due steps across every process (the jobs table, on both engines).
  const queue = () => fromDb("queue", (d) => d.store.runs.queueDepth(Date.now()));
  const m: ConveyorMetrics = {
    registry,
    webhookDeliveries: new Counter({
      name: "conveyor_webhook_deliveries_total",
      help: "Webhook deliveries by result (accepted, duplicate, unauthorized, rejected, not_found, too_large, unavailable: not stored, 503; no_answer: commit outcome unknown, connection closed without a response)",
      labelNames: ["result"],
      registers: [registry],
    }),
    runsFinished: new Counter({
      name: "conveyor_runs_finished_total",
      help: "Runs that reached a final status in this process",
      labelNames: ["status"],
      registers: [registry],
    }),
    stepDuration: new Histogram({
      name: "conveyor_step_duration_seconds",
      help: "Duration of step attempts per component key",
      labelNames: ["key", "status"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    upstreamErrors: new Counter({
      name: "conveyor_upstream_errors_total",
      help: "Failed upstream calls by integration and kind (retryable, permanent)",
      labelNames: ["integration", "kind"],
      registers: [registry],
    }),
    apiRequests: new Counter({
      name: "conveyor_api_requests_total",
      help: "REST API requests by method and status",
      labelNames: ["method", "status"],
      registers: [registry],
    }),
    expressionStops: new Counter({
      name: "conveyor_expression_stops_total",
      help: "Expression evaluations stopped by a limit (time, heap, crash)",
      labelNames: ["reason"],
      registers: [registry],
    }),
    bind(d, r) {
      deps = d;
      role = r ?? processRole().role;
      // Taken before the scrape's own database reads, which would show up as pool pressure.
      pool = d.store.poolStats();
      if (d.queue?.kind === "bullmq" && !scaleOut)
        scaleOut = registerScaleOutGauges(
          registry,
          () => deps,
          () => pool,
        );
    },
  };
  new Gauge({
    name: "conveyor_runs",
    help: "Runs in the database by status",
    labelNames: ["status"],
    registers: [registry],
    async collect() {
      const rows = await fromDb("runs", (d) => d.store.metrics.runsByStatus());
      if (!rows) return;
      this.reset();
      for (const r of rows) this.set({ status: r.status }, r.n);
    },
  });
  new Gauge({
    name: "conveyor_queue_depth",
    help: "Queued jobs ready to run",
    registers: [registry],
    async collect() {
      const q = await queue();
      if (q) this.set(q.depth);
    },
  });
  new Gauge({
    name: "conveyor_queue_oldest_age_seconds",
    help: "Age of the oldest ready job (0 when none)",
    registers: [registry],
    async collect() {
      const q = await queue();
      if (q) this.set(q.oldestAgeMs / 1000);
    },
  });
  registerClusterGauges(
    registry,
    () => deps,
    () => role,
    fromDb,
  );
  return m;
}

type Bound = (Pick<AppDeps, "store"> & Partial<Pick<AppDeps, "queue">>) | undefined;

/** Outbox backlog (cluster-wide, from the database), database reachability and the process's role. */
function registerClusterGauges(
  registry: Registry,
  current: () => Bound,
  role: () => ProcessRoleName,
  fromDb: <T>(key: string, read: (d: Pick<AppDeps, "store">) => Promise<T>) => Promise<T | undefined>,
): void {
  const outbox = () => fromDb("outbox", (d) => d.store.metrics.outbox());
  new Gauge({
    name: "conveyor_outbox_rows",
    help: "Runs committed but not yet published to the distributed queue (scale-out; cluster-wide; 0 in embedded mode)",
    registers: [registry],
    async collect() {
      const o = await outbox();
      if (o) this.set(o.rows);
    },
  });
  new Gauge({
    name: "conveyor_outbox_oldest_age_seconds",
    help: "Age of the oldest outbox row (0 when none); growing means Redis is unreachable or no sweeper runs",
    registers: [registry],
    async collect() {
      const o = await outbox();
      if (o) this.set(o.oldestCreatedAt === null ? 0 : Math.max(0, (Date.now() - o.oldestCreatedAt) / 1000));
    },
  });
  new Gauge({
    name: "conveyor_database_up",
    help: `1 while the database answers this process within ${SCRAPE_DB_TIMEOUT_MS} ms`,
    registers: [registry],
    async collect() {
      if (!current()) return;
      const ok = await fromDb("ping", (d) => d.store.ping().then(() => true));
      this.set(ok ? 1 : 0);
    },
  });
  new Gauge({
    name: "conveyor_process_role",
    help: "1, labelled with this process's role (web, ingress, worker): `sum by (role)` of the per-process series",
    labelNames: ["role"],
    registers: [registry],
    collect() {
      this.reset();
      this.set({ role: role() }, 1);
    },
  });
}

/** This process's view of Redis, its sweeper and its PostgreSQL pool (scale-out mode only). */
function registerScaleOutGauges(registry: Registry, current: () => Bound, poolStats: () => PoolStats | null): true {
  new Counter({
    name: "conveyor_sweeper_republished_total",
    help: "Runs this process's sweeper republished to the distributed queue (lost by Redis, or left in the outbox)",
    registers: [registry],
    collect() {
      const n = current()?.queue?.stats().republished ?? 0;
      this.reset();
      if (n) this.inc(n);
    },
  });
  new Gauge({
    name: "conveyor_redis_up",
    help: "1 while this process reaches Redis (its watchdog's last ping)",
    registers: [registry],
    collect() {
      this.set(current()?.queue?.stats().reachable ? 1 : 0);
    },
  });
  new Gauge({
    name: "conveyor_pg_pool_connections",
    help: "This process's PostgreSQL connections by state (idle, busy)",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      const p = poolStats();
      this.reset();
      if (p) {
        this.set({ state: "idle" }, p.idle);
        this.set({ state: "busy" }, p.total - p.idle);
      }
    },
  });
  new Gauge({
    name: "conveyor_pg_pool_waiting",
    help: "Callers in this process waiting for a PostgreSQL connection (the pool is too small when above 0 for long)",
    registers: [registry],
    collect() {
      this.set(poolStats()?.waiting ?? 0);
    },
  });
  return true;
}

export function getMetrics(): ConveyorMetrics {
  const g = globalThis as G;
  return (g[KEY] ??= create());
}

// Label children looked up once per label set (prom-client hashes the labels on every call otherwise).
const stepChildren = new WeakMap<object, Map<string, { observe(v: number): void }>>();

/** Called by the runner after each step attempt. */
export function recordStepMetrics(key: string, status: string, durationMs: number): void {
  const m = getMetrics();
  let children = stepChildren.get(m.stepDuration);
  if (!children) stepChildren.set(m.stepDuration, (children = new Map()));
  const k = `${key}\u0000${status}`;
  let child = children.get(k);
  if (!child) children.set(k, (child = m.stepDuration.labels({ key, status })));
  child.observe(durationMs / 1000);
  if (status === "retryable_error" || status === "failed") {
    m.upstreamErrors.inc({ integration: key.split(".")[0] ?? "unknown", kind: status === "failed" ? "permanent" : "retryable" });
  }
}
