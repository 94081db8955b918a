/**
 * The PostgreSQL side of the distributed queue: a BullMQ job says "run R has work"; the worker that
 * takes it claims R's due step jobs here with a lease (owner, token, expiry). Starting a queued run is
 * admitted under a per-automation advisory lock so its concurrency limit holds across processes.
 */
import type pg from "pg";
import type { StepJob } from "../engine";
import { sortableId } from "../sortable-id";

export type ClaimResult =
  | { state: "claimed"; jobs: StepJob[] }
  /** No due work now; look again at `atMs` (a retry, a wait, or a lease held elsewhere). */
  | { state: "later"; atMs: number }
  /** The automation is at its concurrency limit. */
  | { state: "full" }
  /** Nothing left to do for this run (finished, cancelled, deleted). */
  | { state: "gone" };

export async function claimRun(pool: pg.Pool, runId: string, owner: string, leaseMs: number, now = Date.now()): Promise<ClaimResult> {
  const c = await pool.connect();
  try {
    await c.query("BEGIN");
    const run = (
      await c.query<{ status: string; automationId: string; concurrency: number | null }>(
        `select r.status, r.automation_id as "automationId", a.concurrency from runs r left join automations a on a.id = r.automation_id where r.id = $1 for update of r`,
        [runId],
      )
    ).rows[0];
    if (!run || !["queued", "running", "waiting"].includes(run.status)) {
      await c.query("COMMIT");
      return { state: "gone" };
    }
    const due = Number(
      (
        await c.query<{ n: number }>(
          "select count(*) as n from jobs where run_id = $1 and ((status = 'queued' and available_at <= $2) or (status = 'leased' and lease_until < $2))",
          [runId, now],
        )
      ).rows[0]!.n,
    );
    if (due === 0) {
      const next = (
        await c.query<{ at: number | null }>(
          "select min(case when status = 'queued' then available_at else lease_until end) as at from jobs where run_id = $1",
          [runId],
        )
      ).rows[0]!.at;
      await c.query("COMMIT");
      return next === null ? { state: "gone" } : { state: "later", atMs: Number(next) };
    }
    const iso = new Date(now).toISOString();
    if (run.status === "queued") {
      await c.query("select pg_advisory_xact_lock(hashtext($1))", [`conveyor:automation:${run.automationId}`]);
      const running = Number((await c.query<{ n: number }>("select count(*) as n from runs where automation_id = $1 and status = 'running'", [run.automationId])).rows[0]!.n);
      if (running >= (run.concurrency ?? 1)) {
        await c.query("COMMIT");
        return { state: "full" };
      }
    }
    if (run.status !== "running") {
      await c.query("update runs set status = 'running', started_at = coalesce(started_at, $1), updated_at = $1 where id = $2", [iso, runId]);
    }
    const token = sortableId("lt");
    // A job taken over from an expired lease counts a stop (its previous worker died or hung while running it).
    const rows = (
      await c.query<{ id: string; automationId: string; payload: { nodeId: string; parentStepId: string | null; stops?: number }; attempts: number }>(
        `update jobs set status = 'leased', lease_owner = $2, lease_token = $3, lease_until = $4, attempts = attempts + 1,
           payload = case when status = 'leased'
             then jsonb_set(payload::jsonb, '{stops}', to_jsonb(coalesce((payload->>'stops')::int, 0) + 1))::json else payload end
         where run_id = $1 and ((status = 'queued' and available_at <= $5) or (status = 'leased' and lease_until < $5))
         returning id, automation_id as "automationId", payload, attempts`,
        [runId, owner, token, now + leaseMs, now],
      )
    ).rows;
    await c.query("COMMIT");
    return {
      state: "claimed",
      jobs: rows.map((r) => ({ id: r.id, runId, automationId: r.automationId, nodeId: r.payload.nodeId, parentStepId: r.payload.parentStepId, attempts: Number(r.attempts), runStatus: "running", token, stops: r.payload.stops ?? 0 })),
    };
  } catch (e) {
    await c.query("ROLLBACK").catch(() => undefined);
    throw e;
  } finally {
    c.release();
  }
}

export async function renewLeases(pool: pg.Pool, owner: string, until: number): Promise<void> {
  await pool.query("update jobs set lease_until = $1 where lease_owner = $2 and status = 'leased'", [until, owner]);
}

export async function releaseJob(pool: pg.Pool, jobId: string, owner: string, atMs: number): Promise<void> {
  await pool.query("update jobs set status = 'queued', available_at = $1, lease_owner = null, lease_token = null, lease_until = null where id = $2 and lease_owner = $3", [atMs, jobId, owner]);
}

export async function releaseAll(pool: pg.Pool, owner: string): Promise<string[]> {
  const r = await pool.query<{ run: string }>(
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

export async function clearOutbox(pool: pg.Pool, runIds: string[]): Promise<void> {
  if (runIds.length) await pool.query("delete from outbox where run_id = any($1::text[])", [runIds]);
}

/** Runs with step jobs, after `afterRunId` (keyset), with when their next job is due. */
export async function runsWithWork(pool: pg.Pool, afterRunId: string, limit: number): Promise<Array<{ runId: string; dueAt: number }>> {
  const r = await pool.query<{ runId: string; dueAt: number }>(
    `select run_id as "runId", min(case when status = 'queued' then available_at else lease_until end) as "dueAt"
     from jobs where run_id > $1 group by run_id order by run_id limit $2`,
    [afterRunId, limit],
  );
  return r.rows.map((x) => ({ runId: x.runId, dueAt: Number(x.dueAt) }));
}

/** A session-level advisory lock (sweeper leadership); held until released or the connection closes. */
export async function tryLeadership(pool: pg.Pool, key: string): Promise<{ release(): Promise<void> } | null> {
  const c = await pool.connect();
  try {
    const ok = (await c.query<{ ok: boolean }>("select pg_try_advisory_lock(hashtext($1)) as ok", [key])).rows[0]!.ok;
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
        await c.query("select pg_advisory_unlock(hashtext($1))", [key]);
        c.release();
      } catch {
        c.release(true);
      }
    },
  };
}
