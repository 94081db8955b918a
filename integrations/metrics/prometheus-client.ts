/** Prometheus HTTP API v1 (2.42 and newer): instant/range queries, alerts, rules, build info. */
import type { HttpClient } from "../core/http";
import { IntegrationHttpError, NonRetryableError } from "../core/errors";
import type { MetricsConnection } from "./connection";
import { createUpstream, type Upstream } from "./upstream";

export interface PromEnvelope<T> {
  status: "success" | "error";
  data: T;
  errorType?: string;
  error?: string;
  warnings?: string[];
}

export interface QueryData {
  resultType: "vector" | "matrix" | "scalar" | "string";
  result: unknown;
}

export interface PromAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: "pending" | "firing";
  activeAt?: string;
  value: string;
}

export interface PromRule {
  type: "alerting" | "recording";
  name: string;
  query: string;
  state?: "inactive" | "pending" | "firing";
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  alerts?: PromAlert[];
  health: string;
  lastEvaluation?: string;
}

/** Prometheus errors are `{status:"error", errorType, error}`; proxies may send plain text or nothing. */
export function describePrometheusError(status: number, body: unknown): string | undefined {
  if (body && typeof body === "object" && typeof (body as PromEnvelope<unknown>).error === "string") {
    const b = body as PromEnvelope<unknown>;
    return b.errorType ? `${b.error} (${b.errorType})` : b.error;
  }
  if (typeof body === "string" && body.trim()) return body.trim().slice(0, 300);
  return status === 401 ? "Unauthorized" : undefined;
}

const MAX_POINTS = 11_000;

export class PrometheusClient {
  readonly upstream: Upstream;
  constructor(http: HttpClient, conn: MetricsConnection) {
    this.upstream = createUpstream("Prometheus", http, conn, conn.metricsBaseUrl, describePrometheusError);
  }

  private async data<T>(path: string, params?: Record<string, string>, method: "GET" | "POST" = "GET"): Promise<{ data: T; warnings: string[] }> {
    const res = await this.upstream.call((http) =>
      method === "POST" ? http.request<PromEnvelope<T>>({ method, url: path, form: params }) : http.get<PromEnvelope<T>>(path, params),
    );
    const body = res.body;
    if (!body || typeof body !== "object" || body.status !== "success" || !("data" in body)) {
      throw new NonRetryableError(`${this.upstream.baseUrl} did not answer like a Prometheus server (unexpected answer to ${path})`);
    }
    return { data: body.data, warnings: body.warnings ?? [] };
  }

  buildInfo() {
    return this.data<{ version: string; revision?: string }>("/api/v1/status/buildinfo");
  }

  /** Instant query (POST form, so long expressions fit). */
  async query(query: string, time?: number) {
    try {
      return await this.data<QueryData>("/api/v1/query", { query, ...(time !== undefined ? { time: String(time) } : {}) }, "POST");
    } catch (e) {
      throw queryError(e);
    }
  }

  /** Range query; refuses up front when Prometheus would exceed its 11,000 points per series. */
  async queryRange(query: string, start: number, end: number, stepSeconds: number) {
    const points = Math.floor((end - start) / stepSeconds);
    if (points > MAX_POINTS) throw pointsLimitError(start, end, stepSeconds);
    try {
      return await this.data<QueryData>("/api/v1/query_range", { query, start: String(start), end: String(end), step: String(stepSeconds) }, "POST");
    } catch (e) {
      if (e instanceof NonRetryableError && /exceeded maximum resolution/i.test(e.message)) throw pointsLimitError(start, end, stepSeconds);
      throw queryError(e);
    }
  }

  alerts() {
    return this.data<{ alerts: PromAlert[] }>("/api/v1/alerts");
  }

  rules() {
    return this.data<{ groups: Array<{ name: string; rules: PromRule[] }> }>("/api/v1/rules", { type: "alert" });
  }
}

function pointsLimitError(start: number, end: number, step: number): NonRetryableError {
  const minStep = Math.ceil((end - start) / MAX_POINTS);
  return new NonRetryableError(
    `The range query would return ${Math.floor((end - start) / step) + 1} points per series but Prometheus allows at most ${MAX_POINTS.toLocaleString("en-US")}: raise the step to at least ${minStep}s (or shorten the range)`,
  );
}

/** Bad PromQL / parameters: Prometheus's own message, never retried. */
function queryError(e: unknown): unknown {
  if (e instanceof NonRetryableError) {
    const details = e.details as { status?: number; body?: unknown } | undefined;
    const body = details?.body as PromEnvelope<unknown> | undefined;
    if (body?.status === "error" && body.error) return new NonRetryableError(`Prometheus rejected the query: ${body.error}`, details);
  }
  if (e instanceof IntegrationHttpError && !e.retryable) return new NonRetryableError(e.message);
  return e;
}
