/**
 * Shared plumbing of the Prometheus and Alertmanager clients: base URL + auth on the step's HTTP
 * client, and one place that turns HTTP failures into messages a user can act on.
 */
import type { HttpClient } from "../core/http";
import { IntegrationHttpError, NonRetryableError, RetryableError } from "../core/errors";
import { authHeaders, type MetricsConnection } from "./connection";

export type Service = "Prometheus" | "Alertmanager";

export interface Upstream {
  service: Service;
  baseUrl: string;
  http: HttpClient;
  /** Runs a request and rewrites its failure into a clear, correctly classified error. */
  call<T>(fn: (http: HttpClient) => Promise<T>): Promise<T>;
}

export function createUpstream(
  service: Service,
  http: HttpClient,
  conn: MetricsConnection,
  baseUrl: string,
  describeError: (status: number, body: unknown) => string | undefined,
): Upstream {
  const client = http.with({ baseUrl, auth: () => authHeaders(conn), describeError });
  return {
    service,
    baseUrl,
    http: client,
    call: async (fn) => {
      try {
        return await fn(client);
      } catch (e) {
        throw explain(service, baseUrl, e);
      }
    },
  };
}

/** Rewrites an HTTP client error: retryable stays retryable, everything else becomes NonRetryableError. */
export function explain(service: Service, baseUrl: string, e: unknown): Error {
  if (e instanceof IntegrationHttpError) {
    const detail = e.message.replace(/^\S+ \S+ → \d+: /, "");
    if (e.status === 401 || e.status === 403) {
      return new NonRetryableError(
        `${service} at ${baseUrl} rejected the credentials (${e.status}${e.status === 401 ? " Unauthorized" : " Forbidden"}): check the connection's API Auth`,
        { status: e.status },
      );
    }
    if (e.retryable) return new RetryableError(`${service} at ${baseUrl} answered ${e.status}: ${detail}`, e.retryAfterMs, { status: e.status });
    return new NonRetryableError(`${service} answered ${e.status}: ${detail}`, { status: e.status, body: e.body });
  }
  if (e instanceof RetryableError) {
    const reason = e.message.replace(/^\S+ \S+ (failed: )?/, "");
    return new RetryableError(`${service} at ${baseUrl} is unreachable (${reason})`, e.retryAfterMs);
  }
  return e as Error;
}
