/**
 * The PostgreSQL side of the distributed queue: a BullMQ job says "run R has work"; the worker that
 * takes it claims R's due step jobs here with a lease (owner, token, expiry). Starting a queued run is
 * admitted under a per-automation advisory lock so its concurrency limit holds across processes.
 */
import pg from "pg";
import { brokenBy } from "./backend";
import type { StepJob } from "../engine";
import { sortableId } from "../sortable-id";
import { lit, named, preparedOn } from "./named";
import { prefetch, RUN_COLS } from "./prefetch";

export type ClaimResult =
  | { state: "claimed"; jobs: StepJob[] }
  /** No due work now; look again at `atMs` (a retry, a wait, or a lease held elsewhere). */
  | { state: "later"; atMs: number }
  /** The automation is at its concurrency limit. */
  | { state: "full" }
  /** Nothing left to do for this run (finished, cancelled, deleted). */
  | { state: "gone" };

/**
 * A job of the run is due: queued and available, or leased with an expired lease. Written as a CASE so
 * that only the run_id index serves these per-run queries: as `(status = … and available_at <= …) or …`
 * the planner also ANDed in the claim index (status, available_at), and while the statistics still
 * described a small table (after a burst of deliveries, before autoanalyze) that read every queued job
 * of every run: 2-3 ms per claim with 60,000 queued, inside the admission lock.
 */
const ACTIVE = ["queued", "running", "waiting"];

const DUE = (now: string) => `case status when 'queued' then available_at <= ${now} when 'leased' then lease_until < ${now} else false end`;

/** The claim's statements, prepared once per connection and run with EXECUTE in one string (see claimRun). */
const CLAIM_LOCK = "select status, set_config('synchronous_commit', 'off', true) as sc from runs where id = $1 for update";
// What the runner reads first for the claimed jobs (db/pg/prefetch.ts), read before the admission lock so
// that it is not held longer: the run row (its status and start are set below) and the step rows of the
// jobs due now (the ones leased below; the run row lock keeps claims and commits of this run out).
// The step rows are read by a correlated subquery per job (a primary-key lookup each): as a join, the
// generic plan of the prepared statement hashed the whole run_steps table (8 ms per claim).
const CLAIM_READ = `select ${RUN_COLS}, (select envelope from events e where e.id = r.event_id) as envelope,
  (select json_agg(json_build_object('jobId', j.id, 'step',
     (select json_build_object('state', s.state, 'attempts', s.attempts, 'logs', s.logs, 'startedAt', s.started_at, 'createdAt', s.created_at)
      from run_steps s where s.id = j.id)))
   from jobs j where j.run_id = $1 and ${DUE("$2")}) as steps
  from runs r where r.id = $1`;
const CLAIM_ADMIT = "select pg_advisory_xact_lock(hashtext($1)) from runs where id = $2 and status = 'queued'";
const CLAIM_START = `update runs set status = 'running', started_at = coalesce(started_at, $2), updated_at = $2
  where id = $1 and (status = 'waiting' or (status = 'queued' and (select count(*) from runs where automation_id = $3 and status = 'running') < $4))`;
// A job taken over from an expired lease counts a stop (its previous worker died or hung while running it).
const CLAIM_LEASE = `update jobs set status = 'leased', lease_owner = $2, lease_token = $3, lease_until = $4, attempts = attempts + 1,
    payload = case when status = 'leased'
      then jsonb_set(payload::jsonb, '{stops}', to_jsonb(coalesce((payload->>'stops')::int, 0) + 1))::json else payload end
  where run_id = $1 and ${DUE("$5")} and exists (select 1 from runs where id = $1 and status = 'running')
  returning id, automation_id as "automationId", payload, attempts`;

/**
 * Claims a run's due jobs in two round trips (one when there is nothing to claim):
 *
 * 1. a read without locks (a named statement): the run's status, automation and due jobs. A run that
 *    is not active, or has nothing due, ends here. Safe without the lock: the run's queue entry
 *    is this BullMQ job; work committed after this read is published again (a retry of an ended run
 *    re-adds its job once this one is done; db/queue/bullmq.ts), and due times only come closer
 *    through commits that publish.
 * 2. the claim itself as one string (simple query protocol: one round trip, each statement with its
 *    own snapshot): lock the run row, take the automation's admission lock when the run is queued,
 *    start the run when the automation is below its concurrency limit, lease the due jobs, commit.
 *    Every statement checks the run's status as it is then, so a run cancelled between the two round
 *    trips is not claimed. The admission lock is held only while the server runs these statements,
 *    never across a round trip to a busy worker's event loop, and the count of running runs is read in
 *    a statement after the lock's, so it sees every admission committed before.
 *
 * The claim is committed asynchronously (no wait for the WAL flush), so the admission lock is held for
 * the few statements of a claim, not for a disk flush. Safe: a claim lost in a PostgreSQL crash only
 * returns its jobs to the queue; the step commit that follows is synchronous and fenced by the lease,
 * and WAL is flushed in order, so a durable step outcome implies its durable claim.
 */
export async function claimRun(pool: pg.Pool, runId: string, owner: string, leaseMs: number, now = Date.now()): Promise<ClaimResult> {
  const run = (
    await named<{ status: string; automationId: string; concurrency: number | null; due: string; next: string | null }>(
      pool,
      `select r.status, r.automation_id as "automationId", a.concurrency,
         (select count(*) from jobs where run_id = r.id and ${DUE("$2")}) as due,
         (select min(case when status = 'queued' then available_at else lease_until end) from jobs where run_id = r.id) as next
       from runs r left join automations a on a.id = r.automation_id where r.id = $1`,
      [runId, now],
    )
  ).rows[0];
  if (!run || !ACTIVE.includes(run.status)) return { state: "gone" };
  if (Number(run.due) === 0) return run.next === null ? { state: "gone" } : { state: "later", atMs: Number(run.next) };
  const c = await pool.connect();
  let broken: Error | undefined;
  try {
    const token = sortableId("lt");
    const [lock, read, admit, start, lease] = await Promise.all([
      preparedOn(c, "cv_claim_lock", CLAIM_LOCK),
      preparedOn(c, "cv_claim_read", CLAIM_READ),
      preparedOn(c, "cv_claim_admit", CLAIM_ADMIT),
      preparedOn(c, "cv_claim_start", CLAIM_START),
      preparedOn(c, "cv_claim_lease", CLAIM_LEASE),
    ]);
    const id = lit(runId);
    const sql = [
      "begin",
      lock(id),
      read(id, lit(now)),
      admit(lit(`conveyor:automation:${run.automationId}`), id),
      start(id, lit(new Date(now).toISOString()), lit(run.automationId), lit(run.concurrency ?? 1)),
      lease(id, lit(owner), lit(token), lit(now + leaseMs), lit(now)),
      "commit",
    ].join(";\n");
    let results: pg.QueryResult[];
    try {
      results = (await c.query(sql)) as unknown as pg.QueryResult[];
    } catch (e) {
      broken = brokenBy(e);
      if (!broken) await c.query("rollback").catch((r: Error) => (broken = r));
      throw e;
    }
    const status = (results[1]!.rows[0] as { status: string } | undefined)?.status;
    const rows = results[5]!.rows as Array<{
      id: string;
      automationId: string;
      payload: { nodeId: string; parentStepId: string | null; stops?: number };
      attempts: number;
    }>;
    if (!status || !ACTIVE.includes(status)) return { state: "gone" };
    // Not admitted (the automation is at its limit). A run already running always has its due jobs here:
    // every claim and step commit locks the run row first.
    if (!rows.length) return status === "queued" ? { state: "full" } : { state: "later", atMs: now + 250 };
    const pf = prefetch(pool);
    const runRow = results[2]!.rows[0] as
      | (Record<string, unknown> & { eventId: string; startedAt: string | null; envelope: unknown; steps: Array<{ jobId: string; step: unknown }> | null })
      | undefined;
    if (runRow) {
      const { envelope, steps, ...row } = runRow;
      pf.runs.put(runId, { ...row, status: "running", startedAt: row.startedAt ?? new Date(now).toISOString() });
      if (envelope != null) pf.events.put(row.eventId, envelope);
      const byJob = new Map((steps ?? []).map((s) => [s.jobId, s.step ?? null]));
      // A job that became due between the read and the lease is read by the runner itself.
      for (const r of rows) if (byJob.has(r.id)) pf.steps.put(r.id, byJob.get(r.id));
    }
    return {
      state: "claimed",
      jobs: rows.map((r) => ({
        id: r.id,
        runId,
        automationId: r.automationId,
        nodeId: r.payload.nodeId,
        parentStepId: r.payload.parentStepId,
        attempts: Number(r.attempts),
        runStatus: "running",
        token,
        stops: r.payload.stops ?? 0,
      })),
    };
  } catch (e) {
    broken ??= brokenBy(e);
    throw e;
  } finally {
    c.release(broken);
  }
}

export async function renewLeases(pool: pg.Pool, owner: string, until: number): Promise<void> {
  await named(pool, "update jobs set lease_until = $1 where lease_owner = $2 and status = 'leased'", [until, owner]);
}

export async function releaseJob(pool: pg.Pool, jobId: string, owner: string, atMs: number): Promise<void> {
  await named(
    pool,
    "update jobs set status = 'queued', available_at = $1, lease_owner = null, lease_token = null, lease_until = null where id = $2 and lease_owner = $3",
    [atMs, jobId, owner],
  );
}

export async function releaseAll(pool: pg.Pool, owner: string): Promise<string[]> {
  const r = await named<{ run: string }>(
    pool,
    "update jobs set status = 'queued', lease_owner = null, lease_token = null, lease_until = null where lease_owner = $1 and status = 'leased' returning run_id as run",
    [owner],
  );
  return [...new Set(r.rows.map((x) => x.run))];
}

/** Outbox rows older than `beforeMs` (work whose publication was lost: crash after commit, Redis away). */
export async function staleOutbox(pool: pg.Pool, beforeMs: number, limit: number): Promise<Array<{ runId: string; availableAt: number }>> {
  const r = await pool.query<{ runId: string; availableAt: number }>(
    'select run_id as "runId", available_at as "availableAt" from outbox where created_at < $1 order by created_at limit $2',
    [beforeMs, limit],
  );
  return r.rows.map((x) => ({ runId: x.runId, availableAt: Number(x.availableAt) }));
}

/**
 * Deletes the outbox rows of published runs, in one statement committed asynchronously (no wait for
 * the WAL flush: `set_config(…, true)` sets synchronous_commit for this statement's own transaction,
 * and is evaluated before a row is deleted): a delete lost in a crash only leaves rows the sweeper
 * publishes again, which is harmless (one BullMQ job id per run; a run without due work is dropped at
 * its claim).
 */
export async function clearOutbox(pool: pg.Pool, runIds: string[]): Promise<void> {
  if (!runIds.length) return;
  await pool.query({
    name: "conveyor_clear_outbox",
    text: "delete from outbox where run_id = any($1::text[]) and set_config('synchronous_commit', 'off', true) is not null",
    values: [runIds],
  });
}

/**
 * Runs with step jobs, after `afterRunId` (keyset), with when their next job is due: the runs of the
 * next `limit` job rows in run_id order (an index range scan that stops there; grouping the whole jobs
 * table cost ~90 ms per sweep with 30,000 runs queued). Empty when there is nothing after the cursor.
 */
export async function runsWithWork(pool: pg.Pool, afterRunId: string, limit: number): Promise<Array<{ runId: string; dueAt: number }>> {
  const r = await named<{ runId: string; dueAt: number }>(
    pool,
    `select p.run_id as "runId", (select min(case when j.status = 'queued' then j.available_at else j.lease_until end) from jobs j where j.run_id = p.run_id) as "dueAt"
     from (select distinct run_id from (select run_id from jobs where run_id > $1 order by run_id limit $2) x) p order by p.run_id`,
    [afterRunId, limit],
  );
  return r.rows.map((x) => ({ runId: x.runId, dueAt: Number(x.dueAt) }));
}

/** A session-level advisory lock (sweeper leadership); held until released or the connection closes. */
export async function tryLeadership(pool: pg.Pool, key: string): Promise<{ release(): Promise<void> } | null> {
  const c = await pool.connect();
  try {
    const ok = (await named<{ ok: boolean }>(c, "select pg_try_advisory_lock(hashtext($1)) as ok", [key])).rows[0]!.ok;
    if (!ok) {
      c.release();
      return null;
    }
  } catch (e) {
    c.release(true);
    throw e;
  }
  return {
    async release() {
      try {
        await named(c, "select pg_advisory_unlock(hashtext($1))", [key]);
        c.release();
      } catch {
        c.release(true);
      }
    },
  };
}
