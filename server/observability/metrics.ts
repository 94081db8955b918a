/**
 * Prometheus metrics (prom-client) for `GET /metrics`. One registry per process, kept on
 * globalThis: the custom server (tsx) and Next's bundle both import this module, and both must
 * count into the same registry. Gauges that live in the database (runs by status, queue depth and
 * age) are collected at scrape time; the rest are counted where the work happens.
 */
import { Counter, Histogram, Registry, Gauge, collectDefaultMetrics } from "prom-client";
import type { Db } from "@/db/client";

export interface ConveyorMetrics {
  registry: Registry;
  webhookDeliveries: Counter<"result">;
  runsFinished: Counter<"status">;
  stepDuration: Histogram<"key" | "status">;
  upstreamErrors: Counter<"integration" | "kind">;
  apiRequests: Counter<"method" | "status">;
  expressionStops: Counter<"reason">;
  bindDb(db: Db): void;
}

const KEY = Symbol.for("conveyor.metrics");
type G = typeof globalThis & { [KEY]?: ConveyorMetrics };

function create(): ConveyorMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "conveyor_process_" });
  let db: Db | undefined;
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
    bindDb(d) {
      db = d;
    },
  };
  new Gauge({
    name: "conveyor_runs",
    help: "Runs in the database by status",
    labelNames: ["status"],
    registers: [registry],
    collect() {
      if (!db) return;
      this.reset();
      const rows = db.$client.prepare("select status, count(*) as n from runs group by status").all() as Array<{ status: string; n: number }>;
      for (const r of rows) this.set({ status: r.status }, r.n);
    },
  });
  new Gauge({
    name: "conveyor_queue_depth",
    help: "Queued jobs ready to run",
    registers: [registry],
    collect() {
      if (!db) return;
      const r = db.$client.prepare("select count(*) as n from jobs where status = 'queued' and available_at <= ?").get(Date.now()) as { n: number };
      this.set(r.n);
    },
  });
  new Gauge({
    name: "conveyor_queue_oldest_age_seconds",
    help: "Age of the oldest ready job (0 when none)",
    registers: [registry],
    collect() {
      if (!db) return;
      const r = db.$client.prepare("select min(available_at) as t from jobs where status = 'queued' and available_at <= ?").get(Date.now()) as { t: number | null };
      this.set(r.t ? (Date.now() - r.t) / 1000 : 0);
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
