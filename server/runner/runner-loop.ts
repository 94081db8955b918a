/**
 * The runner: takes claimed step jobs from the work queue (embedded or BullMQ; see db/queue/types.ts),
 * runs them with bounded per-process concurrency, continues each run's next steps locally, renews
 * its leases, notices cancels made elsewhere, does the finished runs' follow-ups, and the
 * housekeeping (usage flush, schedule ticks, trigger upkeep, history pruning).
 * `npm start` runs it in the web process, `conveyor worker` alone; several may share one database.
 */
import os from "node:os";
import type { AppDeps } from "../deps";
import type { StepJob } from "@/db/engine";
import { newId } from "../ids";
import { configureExpressionSandbox, type SandboxLimits } from "@/integrations/core/sandbox";
import { getMetrics } from "../observability/metrics";
import { registerAbort } from "../run-signals";
import { flushUsage } from "../usage-counters";
import { executeStep, ShutdownAbort, type ExecutorOptions, type LocalItem, type StepAbort } from "./execute-step";
import { runFollowups } from "./follow-ups";
import type { RunnerHooks } from "./hooks";
import { runMaintenance, type MaintenanceOptions } from "./maintenance";
import { DEFAULT_RETRY, type RetryOptions } from "./retry-policy";

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
  /** False while the runner cannot reach its queue or database (readiness). */
  healthy(): boolean;
}

export function startRunner(deps: AppDeps, hooks: RunnerHooks, options: RunnerOptions = {}): Runner {
  const concurrency = options.concurrency ?? 16;
  const owner = options.workerId ?? `${os.hostname()}:${process.pid}:${newId("w", 6)}`;
  const leaseMs = options.leaseMs ?? 30_000;
  const controllers = new Map<string, Set<StepAbort>>();
  // Database outages are said once per process, not once per failed loop (db/outage.ts).
  const outage = deps.store.outage;
  // Aborted when a stop can wait no longer: step commits waiting for the database give up then.
  const stopAll = new AbortController();
  configureExpressionSandbox({ ...options.expressions, onStop: (reason) => getMetrics().expressionStops.inc({ reason }) });
  const exec: ExecutorOptions = {
    owner,
    leaseMs,
    retry: { ...DEFAULT_RETRY, ...options.retry },
    stepTimeoutMs: options.stepTimeoutMs ?? 5 * 60_000,
    maxEnvelopeBytes: options.maxEnvelopeBytes ?? 1024 * 1024,
    hooks,
    quarantineAfter: options.quarantineAfter ?? 3,
    commitAgain(e) {
      outage.failed("step commit", e);
      return outage.back(stopAll.signal);
    },
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
  const consumer = deps.queue.consumer({ owner, leaseMs, pollMs: options.pollMs ?? 100, runs: concurrency });
  const unregisterAbort = registerAbort((runId) => controllers.get(runId)?.forEach((c) => c.abort()));
  const local: LocalItem[] = [];
  /** Jobs of each run queued or executing here (the queue learns when a run has nothing left here). */
  const perRun = new Map<string, number>();
  let inFlight = 0;
  let executed = 0;
  let stopping = false;
  let healthy = true;
  let idleResolve: (() => void) | undefined;

  const hold = (runId: string, n: number) => {
    const v = (perRun.get(runId) ?? 0) + n;
    if (v > 0) perRun.set(runId, v);
    else {
      perRun.delete(runId);
      consumer.idle(runId);
    }
  };

  const pump = () => {
    while (!stopping && inFlight < concurrency && local.length) start(local.shift()!);
    if (stopping && inFlight === 0) idleResolve?.();
  };

  const followups = (runId: string) => {
    runFollowups(deps.store, hooks, runId, deps.now())
      .then((r) => r.handlerRunId && deps.queue.publish([r.handlerRunId]))
      .catch((e) => outage.failed("run follow-ups", e) || deps.log.warn("run follow-ups failed; maintenance retries them", { runId, error: (e as Error).message }));
  };

  /**
   * Gives a job back, retrying until it lands. The database that failed the step's commit usually
   * fails this too; a job left leased to this live runner would have its lease renewed by the
   * heartbeat forever and never run again (found by the chaos suite: PostgreSQL stopped mid-step).
   * The run stays held here until the give-back lands: its queue entry looks again only then, and
   * finds the step due instead of still leased (it would have waited for the lease, renewed meanwhile
   * by the heartbeat: about 40 s after an outage). On stop, every lease still held is given back anyway.
   */
  const giveBack = (job: StepJob, delayMs: number) => {
    hold(job.runId, 1);
    const attempt = (waitMs: number) =>
      consumer.release(job, delayMs).then(
        () => hold(job.runId, -1),
        (e) => {
          if (stopping) return hold(job.runId, -1);
          if (!outage.failed("giving a step back", e))
            deps.log.warn("giving a step back failed; retrying", { runId: job.runId, stepId: job.id, error: (e as Error).message });
          setTimeout(() => void attempt(Math.min(waitMs * 2, 2000)), waitMs).unref();
        },
      );
    void attempt(250);
  };

  const done = (item: LocalItem) => {
    inFlight--;
    executed++;
    hold(item.job.runId, -1);
    pump();
    if (inFlight + local.length < concurrency) consumer.wake();
  };
  const failed = (item: LocalItem, e: unknown) => {
    if (e instanceof ShutdownAbort) return void consumer.release(item.job, 0).catch(() => undefined);
    // The outcome could not be recorded (e.g. the database was unreachable): give the job back so
    // it runs again instead of staying leased to this live worker until its lease expires.
    if (outage.failed("step", e)) return giveBack(item.job, 1000);
    deps.log.error("step execution failed", { runId: item.job.runId, stepId: item.job.id, error: (e as Error).message });
    giveBack(item.job, 5000);
  };
  // One reaction per step (then/catch/finally cost three promises and three turns of the microtask queue).
  const start = (item: LocalItem) => {
    inFlight++;
    executeStep(deps, item, exec).then(
      (r) => {
        try {
          for (const n of r.next) hold(n.job.runId, 1);
          local.push(...r.next);
          if (r.finished) followups(r.finished.runId);
        } catch (e) {
          failed(item, e);
        } finally {
          done(item);
        }
      },
      (e) => {
        try {
          failed(item, e);
        } finally {
          done(item);
        }
      },
    );
  };

  consumer.start(
    (jobs: StepJob[]) => {
      if (stopping) {
        // Claimed while stopping: give them straight back.
        for (const job of jobs) void consumer.release(job, 0).catch(() => undefined);
        return;
      }
      for (const job of jobs) {
        hold(job.runId, 1);
        local.push({ job });
      }
      pump();
    },
    () => (stopping ? 0 : concurrency - inFlight - local.length),
  );

  const heartbeat = setInterval(
    async () => {
      try {
        await consumer.renew();
        if (controllers.size) for (const id of await deps.store.runs.cancelledAmong([...controllers.keys()])) controllers.get(id)?.forEach((c) => c.abort());
        healthy = consumer.healthy();
        outage.reached();
      } catch (e) {
        healthy = false;
        if (!outage.failed("lease renewal", e)) deps.log.warn("lease renewal failed", { error: (e as Error).message });
      }
    },
    Math.max(200, Math.floor(leaseMs / 3)),
  );

  let maintaining = false;
  const maintenance =
    options.maintenance === false
      ? undefined
      : setInterval(() => {
          if (maintaining) return;
          maintaining = true;
          runMaintenance(deps, hooks, options.maintenance || {})
            .then(() => outage.reached())
            .catch((e) => outage.failed("maintenance", e) || deps.log.warn("maintenance failed", { error: (e as Error).message }))
            .finally(() => (maintaining = false));
        }, 1000);

  return {
    workerId: owner,
    stats: () => ({ inFlight, local: local.length, executed }),
    healthy: () => healthy && consumer.healthy(),
    async stop() {
      if (stopping) return;
      stopping = true;
      consumer.drain();
      clearInterval(heartbeat);
      if (maintenance) clearInterval(maintenance);
      for (const item of local.splice(0)) hold(item.job.runId, -1); // claimed but not started: released below
      if (inFlight > 0) {
        const idle = new Promise<void>((resolve) => (idleResolve = resolve));
        const timer = setTimeout(() => {
          controllers.forEach((set) => set.forEach((c) => c.abort(new ShutdownAbort())));
          stopAll.abort(new ShutdownAbort());
        }, options.stopTimeoutMs ?? 20_000);
        await idle;
        clearTimeout(timer);
      }
      unregisterAbort();
      await consumer.stop();
      await flushUsage(deps.store).catch(() => undefined);
    },
  };
}
