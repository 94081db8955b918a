/**
 * The embedded queue (SQLite `jobs` table): one job per step to run. Small interface on purpose
 * (enqueue, claim with lease, renew, complete, reschedule, release) so a BullMQ implementation
 * could replace it. Claims happen inside one IMMEDIATE transaction, so two processes on one
 * database never claim the same job; a job whose lease expired (its worker died) is claimed again.
 */
import type { Db } from "@/db/client";
import { sortableId } from "./fast-id";

export interface StepJob {
  id: string;
  runId: string;
  automationId: string;
  nodeId: string;
  parentStepId: string | null;
  attempts: number;
  runStatus: string;
  /**
   * How many times this step was in flight when its worker stopped (its lease expired: the process
   * died or hung). Counted in the claim transaction, so a step that kills every process that runs
   * it still gets counted; the executor quarantines it at the limit.
   */
  stops: number;
}

const cache = new WeakMap<Db, ReturnType<typeof prepare>>();

function prepare(db: Db) {
  const c = db.$client;
  return {
    insert: c.prepare(
      `insert into jobs (id, kind, run_id, step_id, automation_id, payload, status, available_at, lease_owner, lease_until, attempts, created_at)
       values (?, 'step', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    due: c.prepare(
      `select j.id, j.run_id as runId, j.automation_id as automationId, j.payload, j.attempts, r.status as runStatus
       from jobs j join runs r on r.id = j.run_id
       where j.status = 'queued' and j.available_at <= ?
         and not (r.status = 'queued' and j.automation_id in (select value from json_each(?)))
       order by j.available_at limit ?`,
    ),
    expired: c.prepare(
      `select j.id, j.run_id as runId, j.automation_id as automationId, j.payload, j.attempts, r.status as runStatus, 1 as expired
       from jobs j join runs r on r.id = j.run_id
       where j.status = 'leased' and j.lease_until < ? limit ?`,
    ),
    lease: c.prepare("update jobs set status = 'leased', lease_owner = ?, lease_until = ?, attempts = attempts + 1 where id = ?"),
    countStop: c.prepare("update jobs set payload = json_set(payload, '$.stops', coalesce(json_extract(payload, '$.stops'), 0) + 1) where id = ?"),
    renew: c.prepare("update jobs set lease_until = ? where lease_owner = ? and status = 'leased'"),
    remove: c.prepare("delete from jobs where id = ?"),
    reschedule: c.prepare("update jobs set status = 'queued', available_at = ?, lease_owner = null, lease_until = null where id = ?"),
    rescheduleFresh: c.prepare("update jobs set status = 'queued', available_at = ?, lease_owner = null, lease_until = null, attempts = 0 where id = ?"),
    releaseOne: c.prepare("update jobs set status = 'queued', available_at = ?, lease_owner = null, lease_until = null where id = ? and lease_owner = ?"),
    releaseAll: c.prepare("update jobs set status = 'queued', lease_owner = null, lease_until = null where lease_owner = ? and status = 'leased'"),
    running: c.prepare(
      `select r.automation_id as a, count(*) as n, coalesce(a.concurrency, 1) as c
       from runs r left join automations a on a.id = r.automation_id where r.status = 'running' group by r.automation_id`,
    ),
    concurrency: c.prepare("select concurrency from automations where id = ?"),
    startRun: c.prepare("update runs set status = 'running', started_at = coalesce(started_at, ?), updated_at = ? where id = ? and status in ('queued', 'waiting')"),
    noWait: c.prepare("PRAGMA busy_timeout = 0"),
    wait: c.prepare(`PRAGMA busy_timeout = ${(c.pragma("busy_timeout", { simple: true }) as number) || 5000}`),
    depth: c.prepare("select count(*) as n, min(available_at) as oldest from jobs where status = 'queued' and available_at <= ?"),
  };
}

export function queueStatements(db: Db) {
  let s = cache.get(db);
  if (!s) {
    s = prepare(db);
    cache.set(db, s);
  }
  return s;
}

export function insertStepJob(
  tx: Db,
  j: { runId: string; automationId: string; nodeId: string; parentStepId: string | null; at: number; leaseOwner?: string; leaseUntil?: number },
): string {
  const id = sortableId("stp");
  queueStatements(tx).insert.run(
    id, j.runId, id, j.automationId, JSON.stringify({ nodeId: j.nodeId, parentStepId: j.parentStepId }),
    j.leaseOwner ? "leased" : "queued", j.at, j.leaseOwner ?? null, j.leaseUntil ?? null,
    j.leaseOwner ? 1 : 0, // leased at once to its worker: that is its first attempt
    j.at,
  );
  return id;
}

type Row = { id: string; runId: string; automationId: string; payload: string; attempts: number; runStatus: string; expired?: 1 };

function toJob(r: Row): StepJob {
  const p = JSON.parse(r.payload) as { nodeId: string; parentStepId: string | null; stops?: number };
  const stops = (p.stops ?? 0) + (r.expired ? 1 : 0);
  return { id: r.id, runId: r.runId, automationId: r.automationId, nodeId: p.nodeId, parentStepId: p.parentStepId, attempts: r.attempts + 1, runStatus: r.runStatus, stops };
}

/**
 * Claims up to `limit` due jobs for `owner`. Jobs of runs that have not started yet respect the
 * automation's concurrency (runs in `running` state); such runs are moved to `running` here.
 */
/** Returns the claimed jobs, or null when another process held the write lock (try again shortly). */
export function claimJobs(db: Db, owner: string, limit: number, now: number, leaseMs: number): StepJob[] | null {
  const s = queueStatements(db);
  // Do not wait for the write lock inside SQLite (that blocks the event loop): when another process
  // holds it, claim nothing now; the runner polls again shortly.
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
  const s = queueStatements(db);
  const busy = s.running.all() as Array<{ a: string; n: number; c: number }>;
  const running = new Map(busy.map((r) => [r.a, r.n]));
  const limits = new Map(busy.map((r) => [r.a, r.c]));
  // Automations at their concurrency limit are skipped in SQL, so their backlog cannot starve others.
  const full = JSON.stringify(busy.filter((r) => r.n >= r.c).map((r) => r.a));
  const rows = [...(s.expired.all(now, limit) as Row[]), ...(s.due.all(now, full, limit * 2) as Row[])];
  if (!rows.length) return [];
  const admitted = new Set<string>();
  const claimed: StepJob[] = [];
  const iso = new Date(now).toISOString();
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
    s.lease.run(owner, now + leaseMs, row.id);
    if (row.expired) s.countStop.run(row.id); // its previous worker stopped while running it
    claimed.push(toJob(row));
  }
  return claimed;
}

export function renewLeases(db: Db, owner: string, until: number): void {
  queueStatements(db).renew.run(until, owner);
}

export function releaseLeases(db: Db, owner: string): void {
  queueStatements(db).releaseAll.run(owner);
}

/** Gives one job back to the queue, due again after `delayMs`. */
export function releaseJob(db: Db, id: string, owner: string, delayMs = 0): void {
  queueStatements(db).releaseOne.run(Date.now() + delayMs, id, owner);
}

export function completeJob(tx: Db, id: string): void {
  queueStatements(tx).remove.run(id);
}

/** Puts a job back for later; `resetAttempts` for waits/polls, which are not failed attempts. */
export function rescheduleJob(tx: Db, id: string, availableAt: number, resetAttempts = false): void {
  (resetAttempts ? queueStatements(tx).rescheduleFresh : queueStatements(tx).reschedule).run(availableAt, id);
}

export function queueDepth(db: Db, now: number): { depth: number; oldestAgeMs: number } {
  const r = queueStatements(db).depth.get(now) as { n: number; oldest: number | null };
  return { depth: r.n, oldestAgeMs: r.oldest ? now - r.oldest : 0 };
}
