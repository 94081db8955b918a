/**
 * The PostgreSQL run engine (scale-out mode). Same rows as the SQLite engine and the portable store.
 *
 * - Ingest: the deliveries of one event-loop tick share one transaction with one multi-row statement
 *   per table (`INSERT … SELECT FROM unnest(…)`, duplicates dropped by `ON CONFLICT DO NOTHING` on the
 *   events' dedupe index, no savepoint per item), plus an outbox row per run; each caller resolves after
 *   COMMIT, so a 202 is only sent for committed work. A few batches may be in flight at once.
 * - Step commits: one transaction per step; the step's job row is locked (`FOR UPDATE`) and its lease
 *   owner and token compared first (fencing), so a worker whose lease was taken over writes nothing.
 */
import pg from "pg";
import type { ExistingStep, IngestItem, IngestResult, IntakeHead, RunEngine, RunRow, StepCommit, StepCommitResult, StepJob, StepRowWrite } from "../engine";
import { sortableId } from "../sortable-id";
import type { Envelope, NewRun } from "../stores/runs";
import type { PgBackend } from "./backend";

type Q = Pick<pg.PoolClient, "query">;

const RUN_COLS = `id, workspace_id as "workspaceId", automation_id as "automationId", version, status, trigger_node_id as "triggerNodeId",
  event_id as "eventId", task_id as "taskId", task_step as "taskStep", created_at as "createdAt", started_at as "startedAt", mode`;

async function inTx<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  let broken: Error | undefined;
  try {
    await c.query("BEGIN");
    const out = await fn(c);
    await c.query("COMMIT");
    return out;
  } catch (e) {
    // An error the server sent (a DatabaseError) leaves a usable connection: roll back. Any other
    // (a read timeout, a dropped connection) means the server may not be listening: a ROLLBACK would
    // queue behind the stuck query and wait as long again, so the connection is dropped instead
    // (which ends its transaction on the server).
    if (e instanceof pg.DatabaseError) await c.query("ROLLBACK").catch((r: Error) => (broken = r));
    else broken = e as Error;
    throw e;
  } finally {
    c.release(broken);
  }
}

interface Pending {
  item: IngestItem;
  resolve(r: IngestResult): void;
  reject(e: unknown): void;
}

/** Inserts a batch of new runs (with their events, first jobs and outbox rows); returns the created ones by candidate index. */
export async function insertRuns(q: Q, runs: NewRun[]): Promise<Array<{ runId: string; finished: boolean } | null>> {
  if (!runs.length) return [];
  const ids = runs.map((r) => r.eventId ?? sortableId("evt"));
  const fresh = runs.map((r) => !r.eventId);
  const ev = runs.map((r, i) => ({ r, i })).filter(({ i }) => fresh[i]);
  let inserted = new Set<string>();
  if (ev.length) {
    const res = await q.query<{ id: string }>(
      `insert into events (id, workspace_id, intake_id, automation_id, node_id, dedupe_scope, dedupe_key, type, envelope, source, received_at)
       select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::json[], $10::text[], $11::text[])
       on conflict do nothing returning id`,
      [
        ev.map(({ i }) => ids[i]), ev.map(({ r }) => r.workspaceId), ev.map(({ r }) => r.intakeId ?? null), ev.map(({ r }) => r.automationId),
        ev.map(({ r }) => r.triggerNodeId), ev.map(({ r }) => (r.dedupeKey ? (r.dedupeScope ?? `automation:${r.automationId}`) : null)),
        ev.map(({ r }) => r.dedupeKey ?? null), ev.map(({ r }) => r.envelope.type), ev.map(({ r }) => JSON.stringify(r.envelope)),
        ev.map(({ r }) => r.source), ev.map(({ r }) => r.at.toISOString()),
      ],
    );
    inserted = new Set(res.rows.map((x) => x.id));
  }
  const out: Array<{ runId: string; finished: boolean } | null> = runs.map((r, i) => (fresh[i] && !inserted.has(ids[i]!) ? null : { runId: sortableId("run"), finished: r.firstNodes.length === 0 }));
  const made = runs.map((r, i) => ({ r, i, c: out[i] })).filter((x): x is { r: NewRun; i: number; c: { runId: string; finished: boolean } } => !!x.c);
  if (!made.length) return out;
  const iso = made.map(({ r }) => r.at.toISOString());
  await q.query(
    `insert into runs (id, workspace_id, automation_id, version, status, trigger_node_id, event_id, task_id, task_step, retry_of, error, followup_at, created_at, started_at, finished_at, updated_at)
     select id, ws, a, v, st, tn, ev, tk, ts, ro, null, fu, ca, sa, fa, ca
     from unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[])
       as t(id, ws, a, v, st, tn, ev, tk, ts, ro, fu, ca, sa, fa)`,
    [
      made.map(({ c }) => c.runId), made.map(({ r }) => r.workspaceId), made.map(({ r }) => r.automationId), made.map(({ r }) => r.version),
      made.map(({ c }) => (c.finished ? "succeeded" : "queued")), made.map(({ r }) => r.triggerNodeId), made.map(({ i }) => ids[i]),
      made.map(({ r }) => r.taskId ?? null), made.map(({ r }) => r.taskStep ?? null), made.map(({ r }) => r.retryOf ?? null),
      made.map(({ r, c }, k) => (c.finished && r.taskId ? iso[k] : null)), iso, made.map(({ c }, k) => (c.finished ? iso[k] : null)),
      made.map(({ c }, k) => (c.finished ? iso[k] : null)),
    ],
  );
  const jobs = made.flatMap(({ r, c }) => r.firstNodes.map((nodeId) => ({ id: sortableId("stp"), runId: c.runId, automationId: r.automationId, nodeId, atMs: r.at.getTime() })));
  if (jobs.length) {
    await q.query(
      `insert into jobs (id, kind, run_id, step_id, automation_id, payload, status, available_at, attempts, created_at)
       select id, 'step', run, id, a, p, 'queued', at, 0, at from unnest($1::text[], $2::text[], $3::text[], $4::json[], $5::bigint[]) as t(id, run, a, p, at)`,
      [jobs.map((j) => j.id), jobs.map((j) => j.runId), jobs.map((j) => j.automationId), jobs.map((j) => JSON.stringify({ nodeId: j.nodeId, parentStepId: null })), jobs.map((j) => j.atMs)],
    );
    const queued = made.filter(({ c }) => !c.finished);
    await q.query(
      `insert into outbox (run_id, available_at, created_at) select r, at, at from unnest($1::text[], $2::bigint[]) as t(r, at) on conflict do nothing`,
      [queued.map(({ c }) => c.runId), queued.map(({ r }) => r.at.getTime())],
    );
  }
  return out;
}

function rowToStepWrite(w: StepRowWrite): unknown[] {
  return [
    w.id, w.runId, w.nodeId, w.name, w.key, w.parentStepId, w.status,
    w.input === undefined ? null : JSON.stringify(w.input), w.output ? JSON.stringify(w.output) : null,
    w.state === undefined ? null : JSON.stringify(w.state), JSON.stringify(w.attempts), JSON.stringify(w.logs), w.error, w.createdAt, w.startedAt, w.finishedAt,
    w.origin ? JSON.stringify(w.origin) : null,
  ];
}

const UPSERT_STEP = `insert into run_steps (id, run_id, node_id, name, key, parent_step_id, status, input, output, state, attempts, logs, error, created_at, started_at, finished_at, origin)
  values ($1, $2, $3, $4, $5, $6, $7, $8::json, $9::json, $10::json, $11::json, $12::json, $13, $14, $15, $16, $17::json)
  on conflict (id) do update set status = excluded.status, input = excluded.input, output = excluded.output, state = excluded.state,
  attempts = excluded.attempts, logs = excluded.logs, error = excluded.error, finished_at = excluded.finished_at, origin = excluded.origin`;

/** Ends an active run inside the caller's transaction; false when it was no longer active. */
async function finishRun(c: Q, commit: Pick<StepCommit, "nodeInfo">, runId: string, status: "succeeded" | "failed", error: unknown, iso: string): Promise<boolean> {
  if (status !== "succeeded") {
    const pending = await c.query<{ id: string; payload: { nodeId: string; parentStepId: string | null } }>(
      "select j.id, j.payload from jobs j where j.run_id = $1 and not exists (select 1 from run_steps s where s.id = j.id)",
      [runId],
    );
    for (const j of pending.rows) {
      const n = commit.nodeInfo(j.payload.nodeId);
      await c.query(UPSERT_STEP, rowToStepWrite({
        id: j.id, runId, nodeId: j.payload.nodeId, name: n.name, key: n.key, parentStepId: j.payload.parentStepId, status: "cancelled",
        input: null, output: null, state: null, attempts: [], logs: [], error: null, createdAt: iso, startedAt: null, finishedAt: iso,
      }));
    }
    await c.query("delete from jobs where run_id = $1", [runId]);
    await c.query("update run_steps set status = 'cancelled', finished_at = $1 where run_id = $2 and status in ('queued', 'running', 'waiting')", [iso, runId]);
  }
  const r = await c.query(
    `update runs set status = $1, error = $2::json, finished_at = $3, updated_at = $3,
       followup_at = case when task_id is not null or $1 = 'failed' then $3 else followup_at end
     where id = $4 and status in ('running', 'waiting', 'queued')`,
    [status, error ? JSON.stringify(error) : null, iso, runId],
  );
  return (r.rowCount ?? 0) > 0;
}

async function commitStep(pool: pg.Pool, c: StepCommit): Promise<StepCommitResult> {
  return inTx(pool, async (q) => {
    const iso = c.now.toISOString();
    // Lock order run → job, as in claims and cancels, so concurrent ones serialize instead of deadlocking.
    const run = (await q.query<{ status: string }>("select status from runs where id = $1 for update", [c.run.id])).rows[0];
    const lease = (await q.query<{ owner: string | null; token: string | null }>("select lease_owner as owner, lease_token as token from jobs where id = $1 for update", [c.job.id])).rows[0];
    if (!run || !["running", "waiting", "queued"].includes(run.status)) {
      await q.query(UPSERT_STEP, rowToStepWrite({ ...c.step, status: "cancelled", output: null, state: null, error: "run was cancelled", finishedAt: iso }));
      await q.query("delete from jobs where id = $1", [c.job.id]);
      return { kind: "cancelled" };
    }
    if (!lease || lease.owner !== c.owner || lease.token !== c.job.token) return { kind: "fenced" };
    await q.query(UPSERT_STEP, rowToStepWrite(c.step));
    if (c.queue.kind === "complete") await q.query("delete from jobs where id = $1", [c.job.id]);
    else
      await q.query(
        `update jobs set status = 'queued', available_at = $1, lease_owner = null, lease_token = null, lease_until = null${c.queue.resetAttempts ? ", attempts = 0" : ""} where id = $2`,
        [c.queue.atMs, c.job.id],
      );
    const next: StepJob[] = [];
    const nowMs = c.now.getTime();
    const children = c.children ?? [];
    if (children.length) {
      const token = sortableId("lt");
      const ids = children.map(() => sortableId("stp"));
      await q.query(
        `insert into jobs (id, kind, run_id, step_id, automation_id, payload, status, available_at, lease_owner, lease_token, lease_until, attempts, created_at)
         select id, 'step', $2, id, $3, p, 'leased', $4, $5, $6, $7, 1, $4 from unnest($1::text[], $8::json[]) as t(id, p)`,
        [ids, c.run.id, c.run.automationId, nowMs, c.owner, token, nowMs + c.leaseMs, children.map((nodeId) => JSON.stringify({ nodeId, parentStepId: c.job.id }))],
      );
      children.forEach((nodeId, i) => next.push({ id: ids[i]!, runId: c.run.id, automationId: c.run.automationId, nodeId, parentStepId: c.job.id, attempts: 1, runStatus: "running", token, stops: 0 }));
    }
    const effect = c.runEffect;
    if (effect.kind === "completeIfDone" && !next.length) {
      const left = Number((await q.query<{ n: number }>("select count(*) as n from jobs where run_id = $1", [c.run.id])).rows[0]!.n);
      if (left === 0 && (await finishRun(q, c, c.run.id, "succeeded", null, iso))) return { kind: "ok", next, finished: { status: "succeeded", run: c.run } };
    } else if (effect.kind === "fail") {
      if (await finishRun(q, c, c.run.id, "failed", effect.error, iso)) return { kind: "ok", next, finished: { status: "failed", run: c.run } };
    } else if (effect.kind === "waitingIfIdle") {
      const others = Number((await q.query<{ n: number }>("select count(*) as n from jobs where run_id = $1 and status = 'leased' and id != $2", [c.run.id, c.job.id])).rows[0]!.n);
      if (others === 0) await q.query("update runs set status = 'waiting', updated_at = $1 where id = $2 and status in ('running', 'waiting', 'queued')", [iso, c.run.id]);
    }
    return { kind: "ok", next };
  });
}

export interface PgEngineOptions {
  /** Most ingest batches in flight at once (each holds one connection while it commits). */
  maxInFlight?: number;
  maxBatch?: number;
}

export function pgEngine(backend: PgBackend, opts: PgEngineOptions = {}): RunEngine {
  const pool = backend.pool;
  const maxInFlight = opts.maxInFlight ?? 2;
  const maxBatch = opts.maxBatch ?? 1000;
  const pending: Pending[] = [];
  let inFlight = 0;
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    while (pending.length && inFlight < maxInFlight) {
      const batch = pending.splice(0, maxBatch);
      inFlight++;
      runBatch(batch).finally(() => {
        inFlight--;
        if (pending.length) schedule();
      });
    }
  };
  const schedule = () => {
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  const runBatch = async (batch: Pending[]) => {
    const runs = batch.flatMap((p) => p.item.runs);
    try {
      const created = await inTx(pool, async (q) => {
        const made = await insertRuns(q, runs);
        const counts = new Map<string, { n: number; at: string }>();
        for (const p of batch) {
          if (!p.item.intakeId || !p.item.runs.length) continue;
          const at = p.item.runs[p.item.runs.length - 1]!.at.toISOString();
          const cur = counts.get(p.item.intakeId);
          counts.set(p.item.intakeId, { n: (cur?.n ?? 0) + 1, at: cur && cur.at > at ? cur.at : at });
        }
        if (counts.size) {
          await q.query(
            `update intakes i set last_event_at = greatest(coalesce(i.last_event_at, ''), t.at), event_count = i.event_count + t.n
             from unnest($1::text[], $2::bigint[], $3::text[]) as t(id, n, at) where i.id = t.id`,
            [[...counts.keys()], [...counts.values()].map((v) => v.n), [...counts.values()].map((v) => v.at)],
          );
        }
        return made;
      });
      let k = 0;
      for (const p of batch) {
        const out: IngestResult = { runIds: [], duplicates: 0, finished: 0 };
        for (let i = 0; i < p.item.runs.length; i++) {
          const c = created[k++];
          if (!c) out.duplicates++;
          else {
            out.runIds.push(c.runId);
            if (c.finished) out.finished++;
          }
        }
        p.resolve(out);
      }
    } catch (e) {
      for (const p of batch) p.reject(e);
    }
  };

  return {
    ingest(item) {
      return new Promise<IngestResult>((resolve, reject) => {
        pending.push({ item, resolve, reject });
        schedule();
      });
    },
    async intakeHead(token) {
      const r = await pool.query<Omit<IntakeHead, "automationEnabled"> & { automationEnabled: boolean | null }>(
        `select i.id, i.workspace_id as "workspaceId", i.kind, i.automation_id as "automationId", i.node_id as "nodeId", i.connection_id as "connectionId",
           i.line_id as "lineId", i.status, i.updated_at as "updatedAt", i.config, i.secret_enc as "secretEnc", i.name,
           a.version as "automationVersion", a.enabled as "automationEnabled", a.updated_at as "automationUpdatedAt", c.updated_at as "connectionUpdatedAt"
         from intakes i left join automations a on a.id = i.automation_id left join connections c on c.id = i.connection_id where i.token = $1`,
        [token],
      );
      return r.rows[0];
    },
    async automationsUsingConnection(workspaceId, connectionId) {
      const r = await pool.query<{ id: string; version: number }>("select id, version from automations where workspace_id = $1 and enabled and graph::text like $2", [
        workspaceId, `%${connectionId}%`,
      ]);
      return r.rows;
    },
    async loadRun(runId) {
      return (await pool.query<RunRow>(`select ${RUN_COLS} from runs where id = $1`, [runId])).rows[0];
    },
    async loadEvent(eventId) {
      const row = (await pool.query<{ envelope: Envelope }>("select envelope from events where id = $1", [eventId])).rows[0];
      if (!row) throw new Error(`Event ${eventId} is missing`);
      return row.envelope;
    },
    async loadStep(stepId): Promise<ExistingStep | undefined> {
      const r = (
        await pool.query<ExistingStep & { state: unknown }>(
          `select state, attempts, logs, started_at as "startedAt", created_at as "createdAt" from run_steps where id = $1`,
          [stepId],
        )
      ).rows[0];
      return r ? { ...r, state: r.state ?? undefined } : undefined;
    },
    async loadChain(parentStepId) {
      const steps: Record<string, Envelope> = {};
      if (!parentStepId) return steps;
      const r = await pool.query<{ name: string; output: Envelope | null }>(
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
