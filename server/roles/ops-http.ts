/**
 * The operations endpoints every process role serves, in one place:
 *   GET /api/health        liveness (server/observability/health.ts)
 *   GET /api/health/ready  readiness: 200 only while this process can do its job
 *   GET /metrics           Prometheus text (this process's counters + cluster gauges from the database)
 * `opsRoute` answers them inside any node:http server (the web process calls it before Next.js);
 * `startRoleServer` is the small listener of `conveyor ingress` (plus the lean `/hooks` listener)
 * and `conveyor worker` (when given a port).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { AppDeps } from "../deps";
import { liveness, readiness, RETRY_AFTER_S, type HealthAnswer } from "../observability/health";
import { getMetrics } from "../observability/metrics";
import { problemBody } from "../rest/problem";
import { handleHookRequest, type HookOptions } from "../webhooks/lean-listener";
import { listen } from "../http/listen";
import { gracefulClose } from "../http/graceful-close";
import { listenerOptions, type ListenerLimits } from "../http/listener-limits";
import type { ProcessRole } from "./process-role";

export interface OpsContext {
  deps: AppDeps;
  /** Read at each request (the runner is registered after the listener starts). */
  role: () => ProcessRole;
}

const PATHS = new Set(["/api/health", "/api/health/ready", "/metrics"]);

function problem(status: number, code: Parameters<typeof problemBody>[0], detail: string, headers: Record<string, string> = {}): HealthAnswer {
  return { status, headers: { "content-type": "application/problem+json", ...headers }, body: problemBody(code, detail) as unknown as Record<string, unknown> };
}

async function metricsText(deps: AppDeps, role: ProcessRole): Promise<{ status: number; headers: Record<string, string>; text: string }> {
  const m = getMetrics();
  m.bind(deps, role.role);
  return { status: 200, headers: { "content-type": m.registry.contentType, "cache-control": "no-store" }, text: await m.registry.metrics() };
}

async function answer(path: string, ctx: OpsContext): Promise<{ status: number; headers: Record<string, string>; text: string }> {
  const json = (a: HealthAnswer) => ({ status: a.status, headers: a.headers, text: JSON.stringify(a.body) });
  try {
    if (path === "/metrics") return await metricsText(ctx.deps, ctx.role());
    if (path === "/api/health/ready") return json(await readiness(ctx.deps, ctx.role()));
    return json(await liveness(ctx.deps));
  } catch (e) {
    ctx.deps.log.error("operations endpoint failed", { path, error: (e as Error).message });
    return json(problem(503, "unavailable", `${path} could not be answered: ${(e as Error).message}`, { "retry-after": String(RETRY_AFTER_S) }));
  }
}

/** Answers the operations endpoints; false when the request is for something else. */
export function opsRoute(req: http.IncomingMessage, res: http.ServerResponse, ctx: OpsContext): boolean {
  const raw = req.url ?? "/";
  const q = raw.indexOf("?");
  const path = q < 0 ? raw : raw.slice(0, q);
  if (!PATHS.has(path)) return false;
  req.resume();
  const head = req.method === "HEAD";
  if (req.method !== "GET" && !head) {
    write(
      res,
      { ...problemText(405, "method_not_allowed", `${path} answers GET.`), headers: { "content-type": "application/problem+json", allow: "GET, HEAD" } },
      false,
    );
    return true;
  }
  void answer(path, ctx).then((a) => write(res, a, head));
  return true;
}

function problemText(status: number, code: Parameters<typeof problemBody>[0], detail: string) {
  return { status, text: JSON.stringify(problemBody(code, detail)) };
}

function write(res: http.ServerResponse, a: { status: number; headers?: Record<string, string>; text: string }, head: boolean): void {
  if (res.headersSent) return;
  res.writeHead(a.status, { ...a.headers, "content-length": Buffer.byteLength(a.text) });
  res.end(head ? undefined : a.text);
}

export interface RoleServerOptions extends OpsContext {
  host: string;
  port: number;
  /** Serve `/hooks/*` with the lean listener (ingress processes). */
  hooks?: HookOptions;
  /** Slow-sender limits (default LISTENER_LIMITS; tests shorten them). */
  limits?: ListenerLimits;
}

export interface RoleServer {
  server: http.Server;
  /** The port listened on (useful with port 0). */
  port: number;
  close(): Promise<void>;
}

/** The listener of `conveyor ingress` and `conveyor worker`: operations endpoints, and `/hooks/*` when asked. */
export async function startRoleServer(o: RoleServerOptions): Promise<RoleServer> {
  const server = http.createServer(listenerOptions(o.limits), (req, res) => {
    if (o.hooks && req.url?.startsWith("/hooks/")) return handleHookRequest(req, res, o.deps, o.hooks);
    if (opsRoute(req, res, o)) return;
    req.resume();
    const what = o.hooks ? "webhook deliveries (/hooks/…) and the operations endpoints" : "the operations endpoints";
    write(
      res,
      {
        ...problemText(404, "not_found", `This ${o.role().role} process serves only ${what}: /api/health, /api/health/ready, /metrics.`),
        headers: { "content-type": "application/problem+json" },
      },
      req.method === "HEAD",
    );
  });
  server.keepAliveTimeout = 65_000;
  await listen(server, o.port, o.host, o.role().role === "worker" ? "--port or CONVEYOR_WORKER_PORT" : "--port or CONVEYOR_INGRESS_PORT");
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () => gracefulClose(server),
  };
}
