/**
 * The embedded work queue: due step jobs in the SQLite file's `jobs` table, claimed with a lease (owner,
 * token, expiry) inside one IMMEDIATE transaction, so every process sharing the file claims each job
 * once; a job whose lease expired (its worker died) is claimed again. Jobs of runs that have not
 * started respect their automation's concurrency (runs in `running`). Committed work in this process
 * wakes its consumers at once; other processes find it at their next poll.
 */
import { EventEmitter } from "node:events";
import type { Db } from "../client";
import type { StepJob } from "../engine";
import type { ConsumerOptions, WorkConsumer, WorkQueue } from "../queue/types";
import { isoTime } from "../iso-time";
import { sortableId } from "../sortable-id";
import { gateOf } from "./backend";
import { statements } from "./statements";

type Row = { id: string; runId: string; automationId: string; payload: string; attempts: number; runStatus: string; expired?: 1 };

function toJob(r: Row, token: string): StepJob {
  const p = JSON.parse(r.payload) as { nodeId: string; parentStepId: string | null; stops?: number };
  const stops = (p.stops ?? 0) + (r.expired ? 1 : 0);
  return {
    id: r.id,
    runId: r.runId,
    automationId: r.automationId,
    nodeId: p.nodeId,
    parentStepId: p.parentStepId,
    attempts: r.attempts + 1,
    runStatus: r.runStatus,
    token,
    stops,
  };
}

/** Claims up to `limit` due jobs; null when the write lock is held elsewhere (try again shortly). */
export function claimJobs(db: Db, owner: string, limit: number, now: number, leaseMs: number): StepJob[] | null {
  if (gateOf(db).held) return null;
  const s = statements(db);
  // Never wait for the write lock inside SQLite (that blocks the event loop).
  s.noWait.run();
  try {
    return db.$client.transaction(() => claimInTx(db, owner, limit, now, leaseMs)).immediate();
  } catch (e) {
    if ((e as { code?: string }).code === "SQLITE_BUSY") return null;
    throw e;
  } finally {
    s.wait.run();
  }
}

function claimInTx(db: Db, owner: string, limit: number, now: number, leaseMs: number): StepJob[] {
  const s = statements(db);
  const busy = s.running.all() as Array<{ a: string; n: number; c: number }>;
  const running = new Map(busy.map((r) => [r.a, r.n]));
  const limits = new Map(busy.map((r) => [r.a, r.c]));
  // Automations at their concurrency limit are skipped in SQL, so their backlog cannot starve others.
  const full = JSON.stringify(busy.filter((r) => r.n >= r.c).map((r) => r.a));
  const rows = [...(s.expired.all(now, limit) as Row[]), ...(s.due.all(now, full, limit * 2) as Row[])];
  if (!rows.length) return [];
  const admitted = new Set<string>();
  const claimed: StepJob[] = [];
  const iso = isoTime(now);
  const token = sortableId("lt");
  for (const row of rows) {
    if (claimed.length >= limit) break;
    if (row.runStatus === "queued" && !admitted.has(row.runId)) {
      if (!limits.has(row.automationId)) {
        const a = s.concurrency.get(row.automationId) as { concurrency: number } | undefined;
        limits.set(row.automationId, a?.concurrency ?? 1);
      }
      const inUse = running.get(row.automationId) ?? 0;
      if (inUse >= limits.get(row.automationId)!) continue; // stays queued, visibly
      running.set(row.automationId, inUse + 1);
      admitted.add(row.runId);
    }
    if (row.runStatus === "queued" || row.runStatus === "waiting") s.startRun.run(iso, iso, row.runId);
    s.lease.run(owner, token, now + leaseMs, row.id);
    if (row.expired) s.countStop.run(row.id); // its previous worker stopped while running it
    claimed.push(toJob(row, token));
  }
  return claimed;
}

const SIGNAL = Symbol.for("conveyor.queue.embedded.signal");
type G = typeof globalThis & { [SIGNAL]?: EventEmitter };
function signal(): EventEmitter {
  const g = globalThis as G;
  g[SIGNAL] ??= new EventEmitter().setMaxListeners(100);
  return g[SIGNAL];
}

function consumer(db: Db, opts: ConsumerOptions): WorkConsumer {
  const s = statements(db);
  const gate = gateOf(db);
  // Single statements outside the grouped commits: wait for any open store transaction first.
  const exclusive = async (fn: () => void) => {
    await gate.enter();
    try {
      fn();
    } finally {
      gate.leave();
    }
  };
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let deliver: ((jobs: StepJob[]) => void) | undefined;
  let room: () => number = () => 0;

  const claim = () => {
    timer = undefined;
    if (stopped || !deliver) return;
    const n = room();
    let got = 0;
    let busy = false;
    if (n > 0) {
      try {
        const jobs = claimJobs(db, opts.owner, n, Date.now(), opts.leaseMs);
        busy = jobs === null;
        got = jobs?.length ?? 0;
        if (jobs?.length) deliver(jobs);
      } catch {
        busy = true; // e.g. the database is briefly unavailable: poll again
      }
    }
    schedule(busy ? 2 : got > 0 && got === n ? 0 : opts.pollMs);
  };
  const schedule = (delay: number) => {
    if (stopped) return;
    if (timer && delay > 0) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(claim, delay);
  };
  const onWork = () => schedule(0);

  return {
    start(d, r) {
      deliver = d;
      room = r;
      signal().on("work", onWork);
      schedule(0);
    },
    idle() {},
    wake: () => schedule(0),
    renew: () => exclusive(() => s.renew.run(Date.now() + opts.leaseMs, opts.owner)),
    release: (job, delayMs) => exclusive(() => s.releaseOne.run(Date.now() + delayMs, job.id, opts.owner)),
    drain() {
      stopped = true;
      if (timer) clearTimeout(timer);
      signal().off("work", onWork);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      signal().off("work", onWork);
      await exclusive(() => s.releaseAll.run(opts.owner));
    },
    healthy: () => db.$client.open,
  };
}

export function embeddedQueue(db: Db): WorkQueue {
  return {
    kind: "embedded",
    publish: () => void signal().emit("work"),
    consumer: (opts) => consumer(db, opts),
    // Nothing to sweep: the embedded queue is the SQLite file itself.
    startSweeper: () => async () => undefined,
    sweepNow: async () => 0,
    async ping() {
      db.$client.prepare("select 1").get();
    },
    stats: () => ({ reachable: null, republished: 0 }),
    async close() {},
  };
}
