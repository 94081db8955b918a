/**
 * The distributed work queue (scale-out mode): BullMQ on Redis carries "run R has work" (one job per
 * run, job id = run id, so a run is queued once however often it is published); PostgreSQL keeps
 * everything else (the step jobs, their leases and fencing tokens; db/pg/run-queue.ts).
 *
 * Redis is never the record: work is committed in PostgreSQL with an outbox row before anyone is
 * told, published after the commit, and the sweeper (one leader at a time, by advisory lock)
 * republishes outbox rows left behind and any run with work but no BullMQ job (a Redis restart with
 * an empty data directory included). A Redis that stops answering without closing the connection
 * (a blackhole) is caught by a watchdog ping; when it answers again the worker is rebuilt on fresh
 * connections instead of waiting forever on a dead socket.
 */
import { DelayedError, Queue, Worker, type Job } from "bullmq";
import { Redis, type RedisOptions } from "ioredis";
import type { StepJob } from "../engine";
import type { OpenedStorage } from "../open";
import type { PgBackend } from "../pg/backend";
import { outboxClears } from "../pg/outbox";
import { prefetch } from "../pg/prefetch";
import { claimRun, clearOutbox, releaseAll, releaseJob, renewLeases, runsWithWork, staleOutbox, tryLeadership } from "../pg/run-queue";
import type { ConsumerOptions, WorkConsumer, WorkQueue } from "./types";

export const QUEUE_NAME = "conveyor-runs";

export interface BullmqOptions {
  /** Key prefix (tests give each database its own). */
  prefix?: string;
  /** BullMQ lock of a job being processed (renewed every half; default the runner's lease); stalled jobs come back after it. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  sweepEveryMs?: number;
  /** Outbox rows older than this are republished. */
  outboxGraceMs?: number;
  watchdogEveryMs?: number;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

function redisOptions(url: string, extra: RedisOptions): RedisOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username || undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : undefined,
    tls: u.protocol === "rediss:" ? {} : undefined,
    keepAlive: 10_000,
    connectTimeout: 5000,
    ...extra,
  };
}

/**
 * BullMQ's lock on a run's job and how often workers look for stalled jobs. The lock follows the
 * runner's lease. A dead worker's job comes back in two stalled checks after its last lock renewal
 * (one marks it, the next, once the lock has expired, moves it back), and with several workers a
 * check can be skipped once because another worker's check still counts: so the takeover takes up
 * to about the lock plus two intervals. With the interval at the lock (BullMQ's default spacing),
 * that was up to three times the lease (about 80 s measured at the default 30 s); a sixth of it
 * keeps it near the lease (docs/scale-out.md: about 40 s at the default), for one cheap script per
 * interval per process.
 */
export function workerLockTimings(leaseMs: number, opts: Pick<BullmqOptions, "lockDurationMs" | "stalledIntervalMs"> = {}) {
  const lockDuration = opts.lockDurationMs ?? Math.max(1000, leaseMs);
  return { lockDuration, stalledInterval: opts.stalledIntervalMs ?? Math.max(500, Math.round(lockDuration / 6)) };
}

const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms).unref())]);

/** `host:port` of a Redis URL, for messages (never its password). */
export function redisAddress(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || 6379}`;
}

/**
 * What an operator reads when Redis cannot be used: ioredis says "Stream isn't writeable and
 * enableOfflineQueue options is false" for a connection that is not up; this names the server, the
 * variable and the connection's own last error (e.g. `connect ECONNREFUSED 10.0.0.5:6379`) instead.
 */
export function redisProblem(url: string, e: unknown, lastError?: string): Error {
  const msg = e instanceof Error ? e.message : String(e);
  const notConnected = /Stream isn't writeable|Connection is closed|enableOfflineQueue/i.test(msg);
  const why = notConnected ? (lastError ?? "not connected") : msg;
  return new Error(`Redis at ${redisAddress(url)} (REDIS_URL) is unreachable: ${why}`);
}

export async function openBullmqQueue(redisUrl: string, storage: OpenedStorage, opts: BullmqOptions = {}): Promise<WorkQueue> {
  if (storage.backend.dialect !== "postgres") throw new Error("The BullMQ queue needs the PostgreSQL backend (scale-out mode).");
  const pool = (storage.backend as PgBackend).pool;
  const prefix = opts.prefix ?? "conveyor";
  const log = opts.log ?? (() => undefined);
  // A PostgreSQL outage is said once per process by its outage log (db/outage.ts), not by each claim and sweep.
  const outage = storage.store.outage;
  // Producers fail fast (the outbox keeps what could not be published); workers wait for Redis.
  // The last connection error seen (ECONNREFUSED, ENOTFOUND, NOAUTH…): the reason given when Redis is unreachable.
  let lastError: string | undefined;
  const noteError = (e: Error) => {
    lastError = e.message || lastError;
  };
  const problem = (e: unknown) => redisProblem(redisUrl, e, lastError);
  const producerConn = new Redis(redisOptions(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 5000, lazyConnect: false }));
  producerConn.on("error", noteError);
  const queue = new Queue(QUEUE_NAME, { connection: producerConn, prefix });
  queue.on("error", () => undefined);
  const watch = new Redis(redisOptions(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 2000 }));
  watch.on("error", noteError);

  const jobOpts = (delayMs: number) => ({ removeOnComplete: true, removeOnFail: true, delay: Math.max(0, Math.round(delayMs)) });
  const add = async (items: Array<{ runId: string; dueAt?: number }>) => {
    const now = Date.now();
    await queue
      .addBulk(items.map((i) => ({ name: "run", data: { runId: i.runId }, opts: { jobId: i.runId, ...jobOpts((i.dueAt ?? now) - now) } })))
      .catch((e: unknown) => {
        throw problem(e);
      });
  };

  let redisUp = true;
  let downSince: number | undefined;
  let everConnected = false;
  const onRecover = new Set<() => void>();
  const watchdog = setInterval(async () => {
    // Still opening its first connection (a slow start, not an outage): nothing to say yet.
    if (!everConnected && (watch.status === "connecting" || watch.status === "connect")) return;
    try {
      await withTimeout(watch.ping(), 2000, "redis ping");
      everConnected = true;
      if (!redisUp) {
        redisUp = true;
        log("redis reachable again", { downMs: Date.now() - (downSince ?? Date.now()) });
        onRecover.forEach((fn) => fn());
      }
    } catch (e) {
      if (redisUp) {
        downSince = Date.now();
        // Said once per outage (the "reachable again" line closes it): the workers' readiness is 503 meanwhile.
        log("redis unreachable; work is kept in PostgreSQL's outbox until it is back", { error: problem(e).message });
      }
      redisUp = false;
    }
  }, opts.watchdogEveryMs ?? 1000);
  watchdog.unref();

  // The sweeper: one leader at a time republishes what Redis lost.
  let cursor = "";
  let sweeping = false;
  let republishedTotal = 0;
  const sweep = async (): Promise<number> => {
    if (sweeping || !redisUp) return 0;
    sweeping = true;
    let republished = 0;
    try {
      const lead = await tryLeadership(pool, `conveyor:sweeper:${prefix}`);
      if (!lead) return 0;
      try {
        const stale = await staleOutbox(pool, Date.now() - (opts.outboxGraceMs ?? 2000), 1000);
        if (stale.length) {
          await add(stale.map((s) => ({ runId: s.runId, dueAt: s.availableAt })));
          await clearOutbox(
            pool,
            stale.map((s) => s.runId),
          );
          republished += stale.length;
        }
        const page = await runsWithWork(pool, cursor, 500);
        cursor = page.length ? page[page.length - 1]!.runId : "";
        // Which of them BullMQ does not know: one pipelined EXISTS per job hash (one round trip per page).
        const pipe = producerConn.pipeline();
        for (const r of page) pipe.exists(queue.toKey(r.runId));
        const known = (await pipe.exec()) ?? [];
        const missing = page.filter((_, i) => {
          const [err, n] = known[i] ?? [new Error("no reply"), 0];
          if (err) throw err;
          return Number(n) === 0;
        });
        if (missing.length) {
          await add(missing);
          republished += missing.length;
        }
      } finally {
        await lead.release();
      }
      outage.reached();
    } catch (e) {
      if (!outage.failed("queue sweeper", e)) log("sweep failed", { error: (e as Error).message });
    } finally {
      sweeping = false;
    }
    if (republished) log("sweeper republished runs", { count: republished });
    republishedTotal += republished;
    return republished;
  };
  let sweeper: NodeJS.Timeout | undefined;

  const consumer = (co: ConsumerOptions): WorkConsumer => {
    let worker: Worker | undefined;
    let draining = false;
    let deliver: ((jobs: StepJob[]) => void) | undefined;
    const waiters = new Map<string, () => void>();
    let pgHealthy = true;

    const delay = async (job: Job, token: string | undefined, atMs: number): Promise<never> => {
      await job.moveToDelayed(Math.max(atMs, Date.now() + 10), token);
      throw new DelayedError();
    };
    const processor = async (job: Job<{ runId: string }>, token?: string): Promise<void> => {
      const runId = job.data.runId;
      for (;;) {
        if (draining) return delay(job, token, Date.now() + 500);
        let r: Awaited<ReturnType<typeof claimRun>>;
        try {
          r = await claimRun(pool, runId, co.owner, co.leaseMs);
          pgHealthy = true;
          outage.reached();
        } catch (e) {
          pgHealthy = false;
          if (!outage.failed("claim", e)) log("claim failed", { runId, error: (e as Error).message });
          return delay(job, token, Date.now() + 2000);
        }
        if (r.state === "gone") return;
        if (r.state === "full") return delay(job, token, Date.now() + 250 + Math.random() * 750);
        if (r.state === "later") return delay(job, token, r.atMs);
        if (draining) {
          await Promise.all(r.jobs.map((j) => releaseJob(pool, j.id, co.owner, Date.now()).catch(() => undefined)));
          return delay(job, token, Date.now() + 500);
        }
        const idle = new Promise<void>((resolve) => waiters.set(runId, resolve));
        deliver!(r.jobs);
        await idle;
        // This process's step commit ended the run: nothing left to claim (db/pg/prefetch.ts).
        if (ended.take(runId) === true) return;
      }
    };
    // Each BullMQ worker's own connection: closed by hand when the worker cannot close itself (Redis away).
    const conns = new WeakMap<Worker, Redis>();
    /** Closes a BullMQ worker within `ms`; past that (Redis unreachable: its close waits on commands that never fail), its connection is dropped. */
    const closeWorker = async (w: Worker, ms: number, force: boolean) => {
      await withTimeout(w.close(force), ms, "closing the worker").catch(() => conns.get(w)?.disconnect());
    };
    const makeWorker = () => {
      const conn = new Redis(redisOptions(redisUrl, { maxRetriesPerRequest: null, enableOfflineQueue: true }));
      conn.on("error", noteError);
      const { lockDuration, stalledInterval } = workerLockTimings(co.leaseMs, opts);
      const w = new Worker(QUEUE_NAME, processor, {
        connection: conn,
        prefix,
        concurrency: co.runs,
        lockDuration,
        stalledInterval,
        // Our own per-step attempt counting and quarantine bound re-runs; BullMQ must not fail the run's job.
        maxStalledCount: 1_000_000,
        drainDelay: 2,
      });
      w.on("error", () => undefined);
      conns.set(w, conn);
      return w;
    };
    const rebuild = async () => {
      if (draining || !worker) return;
      const old = worker;
      worker = makeWorker();
      log("worker rebuilt on fresh Redis connections");
      await closeWorker(old, 3000, true);
    };

    return {
      start(d) {
        deliver = d;
        worker = makeWorker();
        onRecover.add(rebuild);
      },
      idle(runId) {
        const w = waiters.get(runId);
        waiters.delete(runId);
        w?.();
      },
      wake() {},
      async renew() {
        try {
          await renewLeases(pool, co.owner, Date.now() + co.leaseMs);
          pgHealthy = true;
        } catch (e) {
          pgHealthy = false;
          throw e;
        }
      },
      async release(job, delayMs) {
        await releaseJob(pool, job.id, co.owner, Date.now() + delayMs);
      },
      drain() {
        draining = true;
      },
      async stop() {
        draining = true;
        onRecover.delete(rebuild);
        for (const w of waiters.values()) w();
        waiters.clear();
        // With Redis reachable, BullMQ's own close (its current jobs end); without, it would wait for Redis forever.
        if (worker) await closeWorker(worker, redisUp ? 10_000 : 1000, !redisUp);
        const runs = await releaseAll(pool, co.owner).catch(() => [] as string[]);
        if (runs.length) await add(runs.map((runId) => ({ runId }))).catch(() => undefined);
      },
      healthy: () => redisUp && pgHealthy,
    };
  };

  // Publishing happens after the commit, off the request path: the runs published in one tick go to
  // Redis in one addBulk and their outbox rows are deleted by the next ingest statement (or a
  // follow-up delete; db/pg/outbox.ts). A failure leaves the outbox rows for the sweeper.
  const clears = outboxClears(pool);
  const ended = prefetch(pool).ended;
  let toPublish: string[] = [];
  const publishBatch = () => {
    const ids = toPublish;
    toPublish = [];
    for (let i = 0; i < ids.length; i += 1000) {
      const chunk = ids.slice(i, i + 1000);
      add(chunk.map((runId) => ({ runId })))
        .then(() => clears.add(chunk))
        .catch((e) => log("publish failed; the sweeper will republish", { count: chunk.length, error: (e as Error).message }));
    }
  };

  return {
    kind: "bullmq",
    publish(runIds, popts) {
      if (!runIds.length) return;
      if (!popts?.again) {
        if (!toPublish.length) setImmediate(publishBatch);
        for (const id of runIds) toPublish.push(id);
        return;
      }
      // A run retried right after it ended may still have its previous job (same id) finishing: adding is
      // then a no-op and the new work would wait for the sweeper. Add again once that job is done (its
      // outbox row stays until then, so the sweeper still covers a crash meanwhile).
      const again = (ids: string[], left: number): void => {
        add(ids.map((runId) => ({ runId })))
          .then(async () => {
            const states = await Promise.all(ids.map((id) => queue.getJobState(id)));
            const busy = ids.filter((_, i) => states[i] === "active");
            const queued = ids.filter((_, i) => states[i] !== "active");
            if (queued.length) await clearOutbox(pool, queued);
            if (busy.length && left > 0) setTimeout(() => again(busy, left - 1), 100).unref();
          })
          .catch((e) => log("publish failed; the sweeper will republish", { count: ids.length, error: (e as Error).message }));
      };
      again(runIds, 100);
    },
    consumer,
    startSweeper(everyMs = opts.sweepEveryMs ?? 2000) {
      if (!sweeper) {
        sweeper = setInterval(() => void sweep(), everyMs);
        sweeper.unref();
      }
      return async () => {
        if (sweeper) clearInterval(sweeper);
        sweeper = undefined;
      };
    },
    sweepNow: sweep,
    async ping() {
      await withTimeout(watch.ping(), 2000, `Redis at ${redisAddress(redisUrl)} (REDIS_URL)`).catch((e: unknown) => {
        throw /did not answer|timed out/.test(String((e as Error).message)) ? e : problem(e);
      });
    },
    stats: () => ({ reachable: redisUp, republished: republishedTotal }),
    async close() {
      clearInterval(watchdog);
      if (sweeper) clearInterval(sweeper);
      await withTimeout(queue.close(), 3000, "closing the queue").catch(() => undefined);
      producerConn.disconnect();
      watch.disconnect();
    },
  };
}
