/**
 * Connection check: Prometheus build info, then Alertmanager status. Says which one failed and why
 * (unreachable, credentials rejected, not a Prometheus / not an Alertmanager).
 */
import type { ConnectionHandle } from "../core/define";
import type { HttpClient } from "../core/http";
import { AlertmanagerClient } from "./alertmanager-client";
import { normalizeConnection, type MetricsConnection } from "./connection";
import { PrometheusClient } from "./prometheus-client";

function reason(e: unknown): string {
  const msg = (e as Error)?.message ?? String(e);
  return msg;
}

export async function verifyMetricsConnection(ctx: {
  connection: ConnectionHandle<MetricsConnection>;
  http: HttpClient;
  signal?: AbortSignal;
}): Promise<{ message: string }> {
  const conn = normalizeConnection(ctx.connection.config);
  const http = ctx.signal ? ctx.http.with({ signal: ctx.signal, timeoutMs: 10_000 }) : ctx.http.with({ timeoutMs: 10_000 });

  let promVersion: string;
  try {
    const { data } = await new PrometheusClient(http, conn).buildInfo();
    if (!data || typeof data.version !== "string") throw new Error(`${conn.metricsBaseUrl} is not a Prometheus server (no build info)`);
    promVersion = data.version;
  } catch (e) {
    const msg = reason(e).replace("did not answer like a Prometheus server", "is not a Prometheus server");
    throw new Error(
      `Metrics server check failed: ${/answered 404/.test(msg) ? `${conn.metricsBaseUrl} is not a Prometheus server (404 on /api/v1/status/buildinfo)` : msg}`,
    );
  }

  const explicitRouter = Boolean(conn.alertRouterBaseUrl);
  try {
    const status = await new AlertmanagerClient(http, conn).status();
    const version = status?.versionInfo?.version;
    if (typeof version !== "string" || !status.cluster) {
      throw new Error(`${conn.alertRouterBaseUrl ?? conn.metricsBaseUrl} is not an Alertmanager (unexpected answer to /api/v2/status)`);
    }
    return { message: `Prometheus ${promVersion} and Alertmanager ${version} are reachable` };
  } catch (e) {
    const msg = reason(e).replace(
      /^Alertmanager answered 404: .*/,
      `${conn.alertRouterBaseUrl ?? conn.metricsBaseUrl} is not an Alertmanager (404 on /api/v2/status)`,
    );
    if (explicitRouter) throw new Error(`Alert router check failed: ${msg}`);
    return {
      message: `Prometheus ${promVersion} is reachable. No Alertmanager answered at the metrics URL (${msg}): set Alert router Base URL to use the silence components.`,
    };
  }
}
