/**
 * Liveness (`GET /api/health`) and readiness (`GET /api/health/ready`), the same in every process
 * role (web, ingress, worker); served by server/roles/ops-http.ts and the Next routes.
 *
 * - Liveness: the database answers and no migration is pending (unchanged since the first wave).
 * - Readiness: 200 only while this process can do its job. The database answers within a short
 *   timeout; in scale-out mode a process with a runner also needs its queue (Redis) and a healthy
 *   runner. Web and ingress processes stay ready while Redis is away: they commit work with an
 *   outbox row in PostgreSQL that the sweeper publishes once Redis is back, so taking them out of a
 *   load balancer would only turn deliveries away. The body names the queue as down all the same.
 *   503 answers are problem+json naming what is down, with `Retry-After`.
 */
import pkg from "@/package.json";
import type { AppDeps } from "../deps";
import { problemBody, RETRY_AFTER_S } from "../rest/problem";
import type { ProcessRole } from "../roles/process-role";

/** Retry-After of 503 answers: readiness and deliveries that could not be committed share REST's. */
export { RETRY_AFTER_S };

/** How long readiness waits for the database and the queue (keep below the probe's own timeout). */
export const READY_TIMEOUT_MS = 2000;

export interface HealthAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e)) || "unreachable";

export async function liveness(deps: Pick<AppDeps, "store">): Promise<HealthAnswer> {
  const headers = { "content-type": "application/json", "cache-control": "no-store" };
  try {
    await deps.store.ping();
    const migrations = await deps.store.migrations.status();
    const ok = migrations.pending === 0;
    return {
      status: ok ? 200 : 503,
      headers,
      body: {
        status: ok ? "ok" : "degraded",
        version: pkg.version,
        database: "ok",
        migrations: { applied: migrations.applied, pending: migrations.pending },
        node: process.version,
        uptimeS: Math.round(process.uptime()),
      },
    };
  } catch (e) {
    return { status: 503, headers, body: { status: "error", version: pkg.version, database: message(e) } };
  }
}

type Check = "ok" | { down: string };

export async function readiness(deps: Pick<AppDeps, "store" | "queue">, role: ProcessRole, timeoutMs = READY_TIMEOUT_MS): Promise<HealthAnswer> {
  const scaleOut = deps.queue.kind === "bullmq";
  const probe = (p: () => Promise<void>, what: string): Promise<Check> =>
    withTimeout(p(), timeoutMs, what).then(
      () => "ok" as const,
      (e) => ({ down: message(e) }),
    );
  const [database, queue] = await Promise.all([
    probe(() => deps.store.ping(), "the database"),
    scaleOut ? probe(() => deps.queue.ping(), "the queue (Redis)") : Promise.resolve(undefined),
  ]);
  const checks: Record<string, Check> = { database };
  if (queue) checks.queue = queue;
  if (role.runner) checks.runner = role.runner.healthy() ? "ok" : { down: "the runner cannot reach its queue or database" };
  // The queue only decides for processes that take work from it (see the comment at the top).
  const deciding = Object.entries(checks).filter(([name]) => name !== "queue" || role.runner);
  const down = deciding.filter(([, c]) => c !== "ok").map(([name]) => name);
  const shown = Object.fromEntries(Object.entries(checks).map(([k, c]) => [k, c === "ok" ? "ok" : `down: ${c.down}`]));
  if (!down.length) {
    return {
      status: 200,
      headers: { "content-type": "application/json", "cache-control": "no-store" },
      body: { status: "ready", role: role.role, checks: shown },
    };
  }
  const detail = `Not ready (${role.role}): ${down.map((d) => `${d} ${shown[d]}`).join("; ")}.`;
  return {
    status: 503,
    headers: { "content-type": "application/problem+json", "cache-control": "no-store", "retry-after": String(RETRY_AFTER_S) },
    body: { ...problemBody("unavailable", detail), role: role.role, down, checks: shown },
  };
}
