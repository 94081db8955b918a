/**
 * Prometheus metrics (prom-client) for `GET /metrics`. One registry per process, kept on
 * globalThis: the custom server (tsx) and Next's bundle both import this module, and both must
 * count into the same registry. Gauges that live in the database (runs by status, queue depth and
 * age) are collected at scrape time; the rest are counted where the work happens.
 */
import { Counter, Histogram, Registry, Gauge, collectDefaultMetrics } from "prom-client";
import type { AppDeps } from "../deps";

export interface ConveyorMetrics {
  registry: Registry;
  webhookDeliveries: Counter<"result">;
  runsFinished: Counter<"status">;
  stepDuration: Histogram<"key" | "status">;
  upstreamErrors: Counter<"integration" | "kind">;
  apiRequests: Counter<"method" | "status">;
  expressionStops: Counter<"reason">;
  /** Where the database gauges are read from at scrape time. */
  bind(deps: Pick<AppDeps, "store">): void;
}

const KEY = Symbol.for("conveyor.metrics");
type G = typeof globalThis & { [KEY]?: ConveyorMetrics };

function create(): ConveyorMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "conveyor_process_" });
  let deps: Pick<AppDeps, "store"> | undefined;
  // Due steps across every process (the jobs table, on both engines).
  const queue = () => (deps ? deps.store.runs.queueDepth(Date.now()) : null);
  const m: ConveyorMetrics = {
    registry,
    webhookDeliveries: new Counter({ name: "conveyor_webhook_deliveries_total", help: "Webhook deliveries by result (accepted, duplicate, unauthorized, rejected, not_found, too_large)", labelNames: ["result"], registers: [registry] }),
    runsFinished: new Counter({ name: "conveyor_runs_finished_total", help: "Runs that reached a final status in this process", labelNames: ["status"], registers: [registry] }),
    stepDuration: new Histogram({
      name: "conveyor_step_duration_seconds",
      help: "Duration of step attempts per component key",
      labelNames: ["key", "status"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    upstreamErrors: new Counter({ name: "conveyor_upstream_errors_total", help: "Failed upstream calls by integration and kind (retryable, permanent)", labelNames: ["integration", "kind"], registers: [registry] }),
    apiRequests: new Counter({ name: "conveyor_api_requests_total", help: "REST API requests by method and status", labelNames: ["method", "status"], registers: [registry] }),
    expressionStops: new Counter({ name: "conveyor_expression_stops_total", help: "Expression evaluations stopped by a limit (time, heap, crash)", labelNames: ["reason"], registers: [registry] }),
    bind(d) {
      deps = d;
    },
  };
  new Gauge({
    name: "conveyor_runs",
    help: "Runs in the database by status",
    labelNames: ["status"],
    registers: [registry],
    async collect() {
      if (!deps) return;
      const rows = await deps.store.metrics.runsByStatus();
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
  return m;
}

export function getMetrics(): ConveyorMetrics {
  const g = globalThis as G;
  return (g[KEY] ??= create());
}

/** Called by the runner after each step attempt. */
export function recordStepMetrics(key: string, status: string, durationMs: number): void {
  const m = getMetrics();
  m.stepDuration.observe({ key, status }, durationMs / 1000);
  if (status === "retryable_error" || status === "failed") {
    m.upstreamErrors.inc({ integration: key.split(".")[0] ?? "unknown", kind: status === "failed" ? "permanent" : "retryable" });
  }
}
