/**
 * The PostgreSQL run engine (scale-out mode). Same rows as the SQLite engine and the portable store.
 *
 * - Ingest (db/pg/ingest.ts): the deliveries of one event-loop tick share one transaction with one
 *   multi-row statement per table, plus an outbox row per run; each caller resolves after COMMIT, so a
 *   202 is only sent for committed work. Intake lookups of one tick share one query.
 * - Step commits: one transaction per step; the step's job row is locked (`FOR UPDATE`) and its lease
 *   owner and token compared first (fencing), so a worker whose lease was taken over writes nothing.
 */
import pg from "pg";
import type { ExistingStep, RunEngine, RunRow, StepCommit, StepCommitResult, StepJob } from "../engine";
import { sortableId } from "../sortable-id";
import type { Envelope } from "../stores/runs";
import { brokenBy, type PgBackend } from "./backend";
import { CommitOutcomeUnknownError } from "../commit-outcome";
import { lit, named, preparedOn } from "./named";
import { MISS, prefetch, RUN_COLS } from "./prefetch";
import { cancelledStepRow, stepRowParams } from "../step-params";
import { ingestBatcher, type IngestOptions } from "./ingest";
import { intakeHeads } from "./intake-heads";

type Q = Pick<pg.PoolClient, "query">;

const UPSERT_STEP = `insert into run_steps (id, run_id, node_id, name, key, parent_step_id, status, input, output, state, attempts, logs, error, created_at, started_at, finished_at, origin)
  values ($1, $2, $3, $4, $5, $6, $7, $8::json, $9::json, $10::json, $11::json, $12::json, $13, $14, $15, $16, $17::json)
  on conflict (id) do update set status = excluded.status, input = excluded.input, output = excluded.output, state = excluded.state,
  attempts = excluded.attempts, logs = excluded.logs, error = excluded.error, finished_at = excluded.finished_at, origin = excluded.origin`;

/** Ends an active run inside the caller's transaction; false when it was no longer active. */
async function finishRun(
  c: Q,
  commit: Pick<StepCommit, "nodeInfo">,
  runId: string,
  status: "succeeded" | "failed",
  error: unknown,
  iso: string,
): Promise<boolean> {
  if (status !== "succeeded") {
    const pending = await named<{ id: string; payload: { nodeId: string; parentStepId: string | null } }>(
      c,
      "select j.id, j.payload from jobs j where j.run_id = $1 and not exists (select 1 from run_steps s where s.id = j.id)",
      [runId],
    );
    for (const j of pending.rows) {
      const n = commit.nodeInfo(j.payload.nodeId);
      await named(c, UPSERT_STEP, stepRowParams(cancelledStepRow({ id: j.id, runId, nodeId: j.payload.nodeId, parentStepId: j.payload.parentStepId }, n, iso)));
    }
    await named(c, "delete from jobs where run_id = $1", [runId]);
    await named(c, "update run_steps set status = 'cancelled', finished_at = $1 where run_id = $2 and status in ('queued', 'running', 'waiting')", [
      iso,
      runId,
    ]);
  }
  const r = await named(
    c,
    `update runs set status = $1, error = $2::json, finished_at = $3, updated_at = $3,
       followup_at = case when task_id is not null or $1 = 'failed' then $3 else followup_at end
     where id = $4 and status in ('running', 'waiting', 'queued')`,
    [status, error ? JSON.stringify(error) : null, iso, runId],
  );
  return (r.rowCount ?? 0) > 0;
}

/**
 * The common outcome in one statement: the step row written, its job completed or rescheduled, its
 * children queued (leased to this worker), and the run finished when this was its last job. Run after
 * the run row is locked (every claim, step commit and cancel locks it first), so the statement's
 * snapshot already holds every job of the run committed by others; the jobs this statement deletes
 * or inserts are accounted for by hand (`id <> $18`, and no finish when there are children).
 */
const COMMIT_STEP = `with st as (
  ${UPSERT_STEP}
), dj as (
  delete from jobs where id = $18 and not $19
), rj as (
  update jobs set status = 'queued', available_at = $20, lease_owner = null, lease_token = null, lease_until = null,
    attempts = case when $21 then 0 else attempts end
  where id = $18 and $19
), ch as (
  insert into jobs (id, kind, run_id, step_id, automation_id, payload, status, available_at, lease_owner, lease_token, lease_until, attempts, created_at)
  select id, 'step', $2, id, $22, p, 'leased', $23, $24, $25, $26, 1, $23 from unnest($27::text[], $28::json[]) as t(id, p)
), fin as (
  update runs set status = 'succeeded', error = null, finished_at = $29, updated_at = $29,
    followup_at = case when task_id is not null then $29 else followup_at end
  where id = $2 and $30 and status in ('running', 'waiting', 'queued') and not exists (select 1 from jobs where run_id = $2 and id <> $18)
  returning id
)
select count(*)::int as finished from fin`;

/**
 * One transaction per step, in two round trips for the common outcome: BEGIN with both row locks (run
 * first, then job: the order of claims and cancels, so concurrent ones serialize instead of
 * deadlocking), then COMMIT_STEP with COMMIT. The statements are prepared on each connection once and
 * run with `EXECUTE` (db/pg/named.ts), so PostgreSQL plans them once although they travel inside
 * multi-statement strings. A run that fails, a step that waits, a cancelled run and a lost lease take
 * more statements in the same transaction.
 */
async function commitStep(pool: pg.Pool, c: StepCommit): Promise<StepCommitResult> {
  const conn = await pool.connect();
  let broken: Error | undefined;
  let began = false;
  // Set once a string holding COMMIT is sent: a failure the server did not send after that leaves the outcome unknown.
  const sent = { commit: false };
  try {
    const lockRun = await preparedOn(conn, "cv_lock_run", "select status from runs where id = $1 for update");
    const lockJob = await preparedOn(conn, "cv_lock_job", "select lease_owner as owner, lease_token as token from jobs where id = $1 for update");
    const commitOne = await preparedOn(conn, "cv_commit_step", COMMIT_STEP);
    began = true;
    const first = (await conn.query(`BEGIN; ${lockRun(lit(c.run.id))}; ${lockJob(lit(c.job.id))}`)) as unknown as pg.QueryResult[];
    const run = first[1]!.rows[0] as { status: string } | undefined;
    const lease = first[2]!.rows[0] as { owner: string | null; token: string | null } | undefined;
    const out = await decide(pool, conn, c, run, lease, commitOne, sent);
    if (!out.committed) {
      sent.commit = true;
      await conn.query("COMMIT");
    }
    return out.result;
  } catch (e) {
    broken = brokenBy(e);
    if (!broken && began) await conn.query("ROLLBACK").catch((r: Error) => (broken = r));
    // The step may be recorded (its COMMIT reached the server and the reply was lost): the runner must not commit it again.
    if (sent.commit && broken) throw new CommitOutcomeUnknownError(`the step's COMMIT got no reply: ${(e as Error).message}`, { cause: e });
    throw e;
  } finally {
    conn.release(broken);
  }
}

async function decide(
  pool: pg.Pool,
  q: pg.PoolClient,
  c: StepCommit,
  run: { status: string } | undefined,
  lease: { owner: string | null; token: string | null } | undefined,
  commitOne: (...args: string[]) => string,
  sent: { commit: boolean },
): Promise<{ result: StepCommitResult; committed: boolean }> {
  const iso = c.now.toISOString();
  const done = (result: StepCommitResult, committed = false) => ({ result, committed });
  if (!run || !["running", "waiting", "queued"].includes(run.status)) {
    await named(q, UPSERT_STEP, stepRowParams({ ...c.step, status: "cancelled", output: null, state: null, error: "run was cancelled", finishedAt: iso }));
    await named(q, "delete from jobs where id = $1", [c.job.id]);
    return done({ kind: "cancelled" });
  }
  if (!lease || lease.owner !== c.owner || lease.token !== c.job.token) return done({ kind: "fenced" });
  const next: StepJob[] = [];
  const nowMs = c.now.getTime();
  const children = c.children ?? [];
  const token = sortableId("lt");
  const ids = children.map(() => sortableId("stp"));
  children.forEach((nodeId, i) =>
    next.push({
      id: ids[i]!,
      runId: c.run.id,
      automationId: c.run.automationId,
      nodeId,
      parentStepId: c.job.id,
      attempts: 1,
      runStatus: "running",
      token,
      stops: 0,
    }),
  );
  const effect = c.runEffect;
  const reschedule = c.queue.kind === "reschedule";
  const finishIfDone = effect.kind === "completeIfDone" && !children.length && !reschedule;
  const args = [
    ...stepRowParams(c.step).map((v) => lit(v)),
    lit(c.job.id),
    lit(reschedule),
    lit(c.queue.kind === "reschedule" ? c.queue.atMs : null),
    lit(c.queue.kind === "reschedule" && c.queue.resetAttempts),
    lit(c.run.automationId),
    lit(nowMs),
    lit(c.owner),
    lit(token),
    lit(nowMs + c.leaseMs),
    lit(ids, "text[]"),
    lit(
      children.map((nodeId) => JSON.stringify({ nodeId, parentStepId: c.job.id })),
      "json[]",
    ),
    lit(iso),
    lit(finishIfDone),
  ];
  if (effect.kind === "none" || effect.kind === "completeIfDone") {
    // The common outcome: the statement and COMMIT in one round trip.
    sent.commit = true;
    const res = (await q.query(`${commitOne(...args)}; COMMIT`)) as unknown as pg.QueryResult[];
    if (finishIfDone && (res[0]!.rows[0] as { finished: number }).finished > 0) {
      prefetch(pool).ended.put(c.run.id, true);
      return done({ kind: "ok", next, finished: { status: "succeeded", run: c.run } }, true);
    }
    return done({ kind: "ok", next }, true);
  }
  await q.query(commitOne(...args));
  if (effect.kind === "fail") {
    if (await finishRun(q, c, c.run.id, "failed", effect.error, iso)) {
      prefetch(pool).ended.put(c.run.id, true);
      return done({ kind: "ok", next, finished: { status: "failed", run: c.run } });
    }
  } else if (effect.kind === "waitingIfIdle") {
    const others = Number(
      (await named<{ n: number }>(q, "select count(*) as n from jobs where run_id = $1 and status = 'leased' and id != $2", [c.run.id, c.job.id])).rows[0]!.n,
    );
    if (others === 0)
      await named(q, "update runs set status = 'waiting', updated_at = $1 where id = $2 and status in ('running', 'waiting', 'queued')", [iso, c.run.id]);
  }
  return done({ kind: "ok", next });
}

export type PgEngineOptions = IngestOptions;

export function pgEngine(backend: PgBackend, opts: PgEngineOptions = {}): RunEngine {
  const pool = backend.pool;
  const ingest = ingestBatcher(pool, opts);
  const intakeHead = intakeHeads(pool);
  const pf = prefetch(pool);

  return {
    ingest,
    intakeHead,
    async automationsUsingConnection(workspaceId, connectionId) {
      const r = await named<{ id: string; version: number }>(
        pool,
        "select id, version from automations where workspace_id = $1 and enabled and graph::text like $2",
        [workspaceId, `%${connectionId}%`],
      );
      return r.rows;
    },
    async loadRun(runId) {
      const hit = pf.runs.take(runId);
      if (hit !== MISS) return hit as RunRow;
      return (await named<RunRow>(pool, `select ${RUN_COLS} from runs where id = $1`, [runId])).rows[0];
    },
    async loadEvent(eventId) {
      const hit = pf.events.take(eventId);
      if (hit !== MISS) return hit as Envelope;
      const row = (await named<{ envelope: Envelope }>(pool, "select envelope from events where id = $1", [eventId])).rows[0];
      if (!row) throw new Error(`Event ${eventId} is missing`);
      return row.envelope;
    },
    async loadStep(stepId): Promise<ExistingStep | undefined> {
      const hit = pf.steps.take(stepId) as (ExistingStep & { state: unknown }) | null | typeof MISS;
      if (hit === null) return undefined;
      if (hit !== MISS) return { ...hit, state: hit.state ?? undefined };
      const r = (
        await named<ExistingStep & { state: unknown }>(
          pool,
          `select state, attempts, logs, started_at as "startedAt", created_at as "createdAt" from run_steps where id = $1`,
          [stepId],
        )
      ).rows[0];
      return r ? { ...r, state: r.state ?? undefined } : undefined;
    },
    async loadChain(parentStepId) {
      const steps: Record<string, Envelope> = {};
      if (!parentStepId) return steps;
      const r = await named<{ name: string; output: Envelope | null }>(
        pool,
        `with recursive chain(id, name, output, parent, depth) as (
           select id, name, output, parent_step_id, 0 from run_steps where id = $1
           union all
           select s.id, s.name, s.output, s.parent_step_id, c.depth + 1 from run_steps s join chain c on s.id = c.parent where c.depth < 1000
         ) select name, output from chain order by depth`,
        [parentStepId],
      );
      for (const row of r.rows) if (row.output && !(row.name in steps)) steps[row.name] = row.output;
      return steps;
    },
    commitStep: (c) => commitStep(pool, c),
  };
}
