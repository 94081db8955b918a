/**
 * The runner: claims due jobs from the durable queue (lease + heartbeat), runs them with bounded
 * per-process concurrency, continues each run's next steps locally, and does the housekeeping
 * (usage flush, schedule ticks, trigger upkeep, history pruning, WAL checkpoints).
 * `npm start` runs it in the web process, `conveyor worker` alone; several may share one database.
 */
import { prepared } from "@/db/prepared";
import os from "node:os";
import type { AppDeps } from "../deps";
import { startCheckpointer } from "@/db/checkpointer";
import { newId } from "../ids";
import { loadConnectionHandle } from "../services/connections/load-connection";
import { configureExpressionSandbox, type SandboxLimits } from "@/integrations/core/sandbox";
import { getMetrics } from "../observability/metrics";
import { executeStep, ShutdownAbort, type ExecutorOptions, type LocalItem } from "./execute-step";
import { runMaintenance, type MaintenanceOptions } from "./maintenance";
import { claimJobs, releaseJob, releaseLeases, renewLeases } from "./queue";
import { DEFAULT_RETRY, type RetryOptions } from "./retry-policy";
import { registerAbort, runnerSignal } from "./signal";
import { flushUsage } from "./usage";

export interface RunnerOptions {
  concurrency?: number;
  workerId?: string;
  leaseMs?: number;
  pollMs?: number;
  retry?: Partial<RetryOptions>;
  stepTimeoutMs?: number;
  maxEnvelopeBytes?: number;
  /** A step whose worker stopped this many times while running it fails (quarantine); default 3. */
  quarantineAfter?: number;
  /** Limits of `{{ }}` expression evaluation (worker processes, wall time, heap); defaults in integrations/core/sandbox. */
  expressions?: Partial<Omit<SandboxLimits, "onStop">>;
  /** How long `stop()` waits for in-flight steps before aborting them. */
  stopTimeoutMs?: number;
  maintenance?: Partial<MaintenanceOptions> | false;
}

export interface Runner {
  stop(): Promise<void>;
  readonly workerId: string;
  stats(): { inFlight: number; local: number; executed: number };
}

export function startRunner(deps: AppDeps, options: RunnerOptions = {}): Runner {
  const concurrency = options.concurrency ?? 16;
  const owner = options.workerId ?? `${os.hostname()}:${process.pid}:${newId("w", 6)}`;
  const leaseMs = options.leaseMs ?? 30_000;
  const pollMs = options.pollMs ?? 100;
  const controllers = new Map<string, Set<AbortController>>();
  configureExpressionSandbox({ ...options.expressions, onStop: (reason) => getMetrics().expressionStops.inc({ reason }) });
  const exec: ExecutorOptions = {
    owner,
    leaseMs,
    retry: { ...DEFAULT_RETRY, ...options.retry },
    stepTimeoutMs: options.stepTimeoutMs ?? 5 * 60_000,
    maxEnvelopeBytes: options.maxEnvelopeBytes ?? 1024 * 1024,
    quarantineAfter: options.quarantineAfter ?? 3,
    loadConnection: (id) => loadConnectionHandle(deps, id),
    track(runId, c) {
      const set = controllers.get(runId) ?? new Set();
      set.add(c);
      controllers.set(runId, set);
      return () => {
        set.delete(c);
        if (!set.size) controllers.delete(runId);
      };
    },
  };
  const unregisterAbort = registerAbort((runId) => controllers.get(runId)?.forEach((c) => c.abort()));
  const local: LocalItem[] = [];
  let inFlight = 0;
  let executed = 0;
  let stopping = false;
  let claimTimer: NodeJS.Timeout | undefined;
  let idleResolve: (() => void) | undefined;

  const pump = () => {
    while (!stopping && inFlight < concurrency && local.length) start(local.shift()!);
    if (stopping && inFlight === 0) idleResolve?.();
  };

  const start = (item: LocalItem) => {
    inFlight++;
    executeStep(deps, item, exec)
      .then((next) => local.push(...next))
      .catch((e) => {
        // The outcome could not be recorded (e.g. the database was busy): give the job back so it
        // runs again instead of staying leased to this live worker forever.
        deps.log.error("step execution failed", { runId: item.job.runId, stepId: item.job.id, error: (e as Error).message });
        try {
          releaseJob(deps.db, item.job.id, owner, 5000);
        } catch {
          /* the lease will expire */
        }
      })
      .finally(() => {
        inFlight--;
        executed++;
        pump();
        if (inFlight + local.length < concurrency) scheduleClaim(0);
      });
  };

  const claim = () => {
    claimTimer = undefined;
    if (stopping) return;
    const room = concurrency - inFlight - local.length;
    let got = 0;
    let busy = false;
    if (room > 0) {
      try {
        const jobs = claimJobs(deps.db, owner, room, Date.now(), leaseMs);
        busy = jobs === null;
        got = jobs?.length ?? 0;
        for (const job of jobs ?? []) local.push({ job });
        pump();
      } catch (e) {
        deps.log.warn("claim failed", { error: (e as Error).message });
      }
    }
    scheduleClaim(busy ? 2 : got > 0 && got === room ? 0 : pollMs);
  };

  const scheduleClaim = (delay: number) => {
    if (stopping) return;
    if (claimTimer && delay > 0) return;
    if (claimTimer) clearTimeout(claimTimer);
    claimTimer = setTimeout(claim, delay);
  };

  const onWork = () => scheduleClaim(0);
  runnerSignal().on("work", onWork);

  const heartbeat = setInterval(() => {
    try {
      renewLeases(deps.db, owner, Date.now() + leaseMs);
      if (controllers.size) {
        const ids = [...controllers.keys()];
        const rows = prepared(deps.db, `select id from runs where status = 'cancelled' and id in (${ids.map(() => "?").join(",")})`)
          .all(...ids) as Array<{ id: string }>;
        for (const r of rows) controllers.get(r.id)?.forEach((c) => c.abort());
      }
    } catch (e) {
      deps.log.warn("heartbeat failed", { error: (e as Error).message });
    }
  }, Math.max(200, Math.floor(leaseMs / 3)));

  const maintenance =
    options.maintenance === false
      ? undefined
      : setInterval(() => {
          runMaintenance(deps, options.maintenance || {}).catch((e) => deps.log.warn("maintenance failed", { error: (e as Error).message }));
        }, 1000);

  const checkpointer = options.maintenance === false ? null : startCheckpointer(deps.db);
  scheduleClaim(0);

  return {
    workerId: owner,
    stats: () => ({ inFlight, local: local.length, executed }),
    async stop() {
      if (stopping) return;
      stopping = true;
      if (claimTimer) clearTimeout(claimTimer);
      clearInterval(heartbeat);
      if (maintenance) clearInterval(maintenance);
      runnerSignal().off("work", onWork);
      local.length = 0; // claimed but not started: released below
      if (inFlight > 0) {
        const idle = new Promise<void>((resolve) => (idleResolve = resolve));
        const timer = setTimeout(() => controllers.forEach((set) => set.forEach((c) => c.abort(new ShutdownAbort()))), options.stopTimeoutMs ?? 20_000);
        await idle;
        clearTimeout(timer);
      }
      unregisterAbort();
      releaseLeases(deps.db, owner);
      flushUsage(deps.db);
      await checkpointer?.stop();
    },
  };
}
