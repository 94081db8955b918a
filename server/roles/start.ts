/**
 * The long-running process roles besides the web process (server/main.ts):
 * - ingress (`conveyor ingress`): the lean `/hooks` listener alone (no Next.js), with the usage
 *   flusher, the queue sweeper and the operations endpoints on the same port;
 * - worker (`conveyor worker`): the runner, the sweeper, and the operations endpoints when a port
 *   is given.
 * Both work in embedded mode (several processes on one SQLite file) and in scale-out mode.
 */
import type { AppDeps } from "../deps";
import type { Env } from "../env";
import { runnerHooks } from "../runner-hooks";
import { flushRefusals } from "../services/webhooks/refusals";
import { runnerOptionsFromEnv } from "../runner/runner-env";
import { startRunner, type Runner, type RunnerOptions } from "../runner/runner-loop";
import { startUsageFlusher } from "../usage-counters";
import { startRoleServer, type RoleServer } from "./ops-http";
import { processRole, setProcessRole, setProcessRunner } from "./process-role";

export interface StartedRole {
  /** The HTTP port (ingress always; worker when asked for one). */
  port?: number;
  runner?: Runner;
  /** Stops taking work, finishes what is in flight, closes the queue and the database. */
  stop(): Promise<void>;
}

type RoleEnv = Pick<Env, "HOST" | "CONVEYOR_WEBHOOK_MAX_BYTES" | "CONVEYOR_WEBHOOK_TIMEOUT_MS" | "CONVEYOR_WEBHOOK_OUTCOME_GRACE_MS"> &
  Partial<Pick<Env, "CONVEYOR_WEBHOOK_SIGNATURE_TOLERANCE_S">>;

export async function startIngress(deps: AppDeps, env: RoleEnv, opts: { port: number; host?: string }): Promise<StartedRole> {
  setProcessRole("ingress");
  const stopFlusher = startUsageFlusher(deps.store);
  const stopSweeper = deps.queue.startSweeper();
  let server: RoleServer;
  try {
    server = await startRoleServer({
      deps,
      role: processRole,
      host: opts.host ?? env.HOST,
      port: opts.port,
      hooks: {
        maxBytes: env.CONVEYOR_WEBHOOK_MAX_BYTES,
        timeoutMs: env.CONVEYOR_WEBHOOK_TIMEOUT_MS,
        outcomeGraceMs: env.CONVEYOR_WEBHOOK_OUTCOME_GRACE_MS,
        signatureToleranceS: env.CONVEYOR_WEBHOOK_SIGNATURE_TOLERANCE_S,
      },
    });
  } catch (e) {
    await stopFlusher();
    await stopSweeper();
    throw e;
  }
  return {
    port: server.port,
    async stop() {
      await server.close();
      await flushRefusals(deps);
      await stopFlusher();
      await stopSweeper();
      await deps.queue.close();
      await deps.store.close();
    },
  };
}

export async function startWorker(
  deps: AppDeps,
  env: Parameters<typeof runnerOptionsFromEnv>[0] & Pick<Env, "HOST">,
  opts: { port?: number; host?: string; runner?: RunnerOptions } = {},
): Promise<StartedRole> {
  setProcessRole("worker");
  const runner = startRunner(deps, runnerHooks(deps), { ...runnerOptionsFromEnv(env), ...opts.runner });
  setProcessRunner(runner);
  const stopSweeper = deps.queue.startSweeper();
  let server: RoleServer | undefined;
  if (opts.port !== undefined) {
    try {
      server = await startRoleServer({ deps, role: processRole, host: opts.host ?? env.HOST, port: opts.port });
    } catch (e) {
      await runner.stop();
      await stopSweeper();
      throw e;
    }
  }
  return {
    port: server?.port,
    runner,
    async stop() {
      await server?.close();
      await runner.stop();
      await stopSweeper();
      await deps.queue.close();
      await deps.store.close();
    },
  };
}
