/**
 * Webhook ingest on PostgreSQL (scale-out mode), grouped per event-loop tick:
 *
 * - Intake lookups: db/pg/intake-heads.ts (heads kept per process, re-checked by the statement below).
 * - Deliveries: the deliveries of one tick share one transaction with one multi-row statement per
 *   table (db/pg/engine.ts insertRuns) and one outbox row per run; each caller resolves after COMMIT
 *   (202 only for committed work). A few batches may be in flight at once (each holds a connection).
 * - Intake counters (`event_count`, `last_event_at`: statistics for the intakes page) are updated in
 *   the batch's transaction, but only on rows no other in-flight batch holds (`FOR UPDATE SKIP
 *   LOCKED`): every delivery of one intake used to wait for the previous batch's commit (its fsync)
 *   on that one row, in every ingress process. Counts of a skipped row are carried into this
 *   process's next batch (or a short follow-up update), so they add up; a crash can lose the carried
 *   counts of the last batches, never a delivery.
 * - A batch whose statement was sent and not answered (a read timeout, a connection lost after
 *   sending) may have committed: it is checked on fresh connections (db/pg/ingest-outcome.ts) and
 *   answered as committed, as not stored, or with CommitOutcomeUnknownError.
 */
import pg from "pg";
import type { IngestItem, IngestResult, IntakeHead } from "../engine";
import { sortableId } from "../sortable-id";
import type { NewRun } from "../stores/runs";
import { CommitOutcomeUnknownError } from "../commit-outcome";
import { candidatesOf, existingRuns, outcomeUnknown, sendTracked, withCandidates } from "./ingest-outcome";
import { outboxClears, type OutboxClears } from "./outbox";
import { sigsOf, takeBatch, type Sigs } from "./ingest-signatures";

type Q = Pick<pg.PoolClient, "query">;

/**
 * One statement (so one round trip, atomic without BEGIN/COMMIT) for a whole batch: the events
 * (duplicates dropped by the dedupe index), the runs of the events that were new (or that exist
 * already, for runs created from a stored event), their first step jobs and outbox rows, and the
 * intake counters on rows no other transaction holds, and the outbox rows of runs published since the
 * previous batch are deleted (db/pg/outbox.ts: no statement and no commit of their own). Runs built
 * from a cached intake head carry the index `g` of their guard: when the intake, automation or
 * connection no longer match it (`st`), none of those rows is written and the guard's index is
 * returned. Rows travel as one JSON array per table
 * (json_to_recordset): no array literal to escape, one JSON.stringify per batch. Named, so each
 * connection parses and plans it once.
 */
const INGEST_SQL = `with st as (
  select g.n from json_to_recordset($7::json)
    as g(n int, i text, iu text, ist text, a text, node text, c text, v bigint, en boolean, au text, cu text)
  where not exists (
    select 1 from intakes i join automations a on a.id = i.automation_id left join connections c on c.id = i.connection_id
    where i.id = g.i and i.updated_at = g.iu and i.status = g.ist and i.automation_id = g.a and i.node_id = g.node
      and i.connection_id is not distinct from g.c and c.updated_at is not distinct from g.cu
      and a.version = g.v and a.enabled = g.en and a.updated_at = g.au)
), sg as (
  insert into webhook_signatures (intake_id, signature, expires_at)
  select t.i, t.s, t.x from json_to_recordset($8::json) as t(n int, i text, s text, x bigint, g int)
  where t.g is null or t.g not in (select n from st)
  order by t.i, t.s
  on conflict do nothing returning intake_id, signature
), sn as (
  select t.n from json_to_recordset($8::json) as t(n int, i text, s text) join sg on sg.intake_id = t.i and sg.signature = t.s
), ev as (
  insert into events (id, workspace_id, intake_id, automation_id, node_id, dedupe_scope, dedupe_key, type, envelope, source, received_at)
  select id, ws, intake, a, node, scope, key, type, envelope, source, at
  from json_to_recordset($1::json) as t(id text, ws text, intake text, a text, node text, scope text, key text, type text, envelope json, source text, at text, g int, sn int)
  where (t.g is null or t.g not in (select n from st)) and (t.sn is null or t.sn in (select n from sn))
  on conflict do nothing returning id
), r as (
  select * from json_to_recordset($2::json)
    as t(id text, ws text, a text, v bigint, st text, tn text, ev text, fresh boolean, tk text, ts bigint, ro text, fu text, ca text, fa text, g int, sn int)
  where (not t.fresh or t.ev in (select id from ev)) and (t.g is null or t.g not in (select n from st)) and (t.sn is null or t.sn in (select n from sn))
), ru as (
  insert into runs (id, workspace_id, automation_id, version, status, trigger_node_id, event_id, task_id, task_step, retry_of, error, followup_at, created_at, started_at, finished_at, updated_at)
  select id, ws, a, v, st, tn, ev, tk, ts, ro, null, fu, ca, fa, fa, ca from r returning id
), jo as (
  insert into jobs (id, kind, run_id, step_id, automation_id, payload, status, available_at, attempts, created_at)
  select j.id, 'step', j.run, j.id, j.a, j.p, 'queued', j.at, 0, j.at from json_to_recordset($3::json) as j(id text, run text, a text, p json, at bigint)
  where j.run in (select id from r)
), ob as (
  insert into outbox (run_id, available_at, created_at)
  select o.run, o.at, o.at from json_to_recordset($4::json) as o(run text, at bigint) where o.run in (select id from r)
  on conflict do nothing
), ic as (
  update intakes i set last_event_at = greatest(coalesce(i.last_event_at, ''), t.at), event_count = i.event_count + t.n
  from json_to_recordset($5::json) as t(id text, n bigint, at text)
  where i.id = t.id and i.id in (select id from intakes where id in (select x.id from json_to_recordset($5::json) as x(id text)) for update skip locked)
  returning i.id
), del as (
  delete from outbox where run_id = any($6::text[])
)
select 'r' as k, id from ru union all select 'i' as k, id from ic union all select 's' as k, n::text from st
union all select 'p' as k, t.n::text from json_to_recordset($8::json) as t(n int, g int)
  where (t.g is null or t.g not in (select n from st)) and t.n not in (select n from sn)`;

/**
 * Commits a batch of new runs (with their events, first jobs and outbox rows) and intake counts;
 * returns the created runs by candidate index and the intakes whose counts were applied.
 */
export async function ingestRows(
  q: Q,
  runs: NewRun[],
  counts: Counts,
  clears?: OutboxClears,
  guards: Guards = { of: [], list: [] },
  sigs: Sigs = { of: [], list: [] },
): Promise<{ created: Array<{ runId: string; finished: boolean } | null>; applied: Set<string>; stale: Set<number>; replayed: Set<number> }> {
  const evIds = runs.map((r) => r.eventId ?? sortableId("evt"));
  const cands = runs.map((r) => ({ runId: sortableId("run"), finished: r.firstNodes.length === 0 }));
  const events: unknown[] = [];
  const rows: unknown[] = [];
  const jobs: unknown[] = [];
  const outbox: unknown[] = [];
  runs.forEach((r, i) => {
    const fresh = !r.eventId;
    const iso = r.at.toISOString();
    const { runId, finished } = cands[i]!;
    if (fresh) {
      events.push({
        id: evIds[i],
        ws: r.workspaceId,
        intake: r.intakeId ?? null,
        a: r.automationId,
        node: r.triggerNodeId,
        scope: r.dedupeKey ? (r.dedupeScope ?? `automation:${r.automationId}`) : null,
        key: r.dedupeKey ?? null,
        type: r.envelope.type,
        envelope: r.envelope,
        source: r.source,
        at: iso,
        g: guards.of[i] ?? null,
        sn: sigs.of[i] ?? null,
      });
    }
    rows.push({
      id: runId,
      ws: r.workspaceId,
      a: r.automationId,
      v: r.version,
      st: finished ? "succeeded" : "queued",
      tn: r.triggerNodeId,
      ev: evIds[i],
      fresh,
      tk: r.taskId ?? null,
      ts: r.taskStep ?? null,
      ro: r.retryOf ?? null,
      fu: finished && r.taskId ? iso : null,
      ca: iso,
      fa: finished ? iso : null,
      g: guards.of[i] ?? null,
      sn: sigs.of[i] ?? null,
    });
    const atMs = r.at.getTime();
    for (const nodeId of r.firstNodes) jobs.push({ id: sortableId("stp"), run: runId, a: r.automationId, p: { nodeId, parentStepId: null }, at: atMs });
    if (!finished) outbox.push({ run: runId, at: atMs });
  });
  const published = clears ? clears.take() : [];
  let res: pg.QueryResult<{ k: string; id: string }>;
  try {
    res = await q.query<{ k: string; id: string }>({
      name: "conveyor_ingest",
      text: INGEST_SQL,
      values: [
        JSON.stringify(events),
        JSON.stringify(rows),
        JSON.stringify(jobs),
        JSON.stringify(outbox),
        JSON.stringify([...counts].map(([id, v]) => ({ id, n: v.n, at: v.at }))),
        published,
        JSON.stringify(guards.list),
        JSON.stringify(sigs.list),
      ],
    });
  } catch (e) {
    if (published.length) clears!.add(published); // still published: deleted by the next batch or the follow-up
    // The candidates travel with a failure, so a commit whose reply was lost can be checked (db/pg/ingest-outcome.ts).
    throw withCandidates(e, cands);
  }
  const made = new Set<string>();
  const applied = new Set<string>();
  const stale = new Set<number>();
  const replayed = new Set<number>();
  for (const row of res.rows) {
    if (row.k === "r") made.add(row.id);
    else if (row.k === "i") applied.add(row.id);
    else if (row.k === "p") replayed.add(Number(row.id));
    else stale.add(Number(row.id));
  }
  return { created: cands.map((c) => (made.has(c.runId) ? c : null)), applied, stale, replayed };
}

type Counts = Map<string, { n: number; at: string }>;

/** The guards of a batch (one per distinct cached head) and, per run, the index of its guard. */
interface Guards {
  of: Array<number | null>;
  list: Array<Record<string, unknown>>;
}

function guardsOf(items: IngestItem[]): { guards: Guards; byItem: Array<number | null> } {
  const guards: Guards = { of: [], list: [] };
  // A kept head is one object per token (db/pg/intake-heads.ts): the deliveries of one intake share it.
  const seen = new Map<IntakeHead, number>();
  const byItem = items.map((item) => {
    const h = item.guard;
    let n: number | null = null;
    if (h) {
      n = seen.get(h) ?? null;
      if (n === null) {
        n = guards.list.length;
        seen.set(h, n);
        guards.list.push({
          n,
          i: h.id,
          iu: h.updatedAt,
          ist: h.status,
          a: h.automationId,
          node: h.nodeId,
          c: h.connectionId,
          v: h.automationVersion,
          en: h.automationEnabled,
          au: h.automationUpdatedAt,
          cu: h.connectionUpdatedAt,
        });
      }
    }
    for (let i = 0; i < item.runs.length; i++) guards.of.push(n);
    return n;
  });
  return { guards, byItem };
}

function addCount(m: Counts, id: string, n: number, at: string) {
  const cur = m.get(id);
  m.set(id, { n: (cur?.n ?? 0) + n, at: cur && cur.at > at ? cur.at : at });
}

/** Adds the counts to the intakes no other transaction holds; returns the ids it updated. */
async function bumpIntakes(q: Pick<pg.PoolClient, "query">, counts: Counts): Promise<Set<string>> {
  const r = await q.query<{ id: string }>(
    `update intakes i set last_event_at = greatest(coalesce(i.last_event_at, ''), t.at), event_count = i.event_count + t.n
     from unnest($1::text[], $2::bigint[], $3::text[]) as t(id, n, at)
     where i.id = t.id and i.id in (select id from intakes where id = any($1::text[]) for update skip locked)
     returning i.id`,
    [[...counts.keys()], [...counts.values()].map((v) => v.n), [...counts.values()].map((v) => v.at)],
  );
  return new Set(r.rows.map((x) => x.id));
}

interface Pending {
  item: IngestItem;
  resolve(r: IngestResult): void;
  reject(e: unknown): void;
}

export interface IngestOptions {
  /** Most ingest batches in flight at once (each holds one connection while it commits). */
  maxInFlight?: number;
  maxBatch?: number;
  /**
   * How long a batch whose commit outcome is unknown (sent, no reply) is checked for on fresh
   * connections before its deliveries get CommitOutcomeUnknownError (default 60 s; each delivery's
   * own answer is bounded earlier by server/webhooks/deliver.ts).
   */
  outcomeWaitMs?: number;
}

export function ingestBatcher(pool: pg.Pool, opts: IngestOptions = {}): (item: IngestItem) => Promise<IngestResult> {
  const maxInFlight = opts.maxInFlight ?? 2;
  const maxBatch = opts.maxBatch ?? 1000;
  const outcomeWaitMs = opts.outcomeWaitMs ?? 60_000;
  const pending: Pending[] = [];
  const clears = outboxClears(pool);
  let inFlight = 0;
  let scheduled = false;
  // Intake counts not applied yet (their row was held by another batch).
  let carry: Counts = new Map();
  let carryTimer: NodeJS.Timeout | undefined;

  const flush = () => {
    scheduled = false;
    while (pending.length && inFlight < maxInFlight) {
      const batch = takeBatch(pending, maxBatch);
      inFlight++;
      void runBatch(batch).finally(() => {
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
  const takeCarry = (into: Counts) => {
    for (const [id, v] of carry) addCount(into, id, v.n, v.at);
    carry = new Map();
  };
  // Counts still carried after a batch are applied by a follow-up update shortly after (or by the next
  // batch, whichever comes first); a second later when the database did not answer.
  const keepCarry = (counts: Counts, applied: Set<string>, delayMs = 50) => {
    for (const [id, v] of counts) if (!applied.has(id)) addCount(carry, id, v.n, v.at);
    if (carry.size && !carryTimer) {
      carryTimer = setTimeout(() => {
        carryTimer = undefined;
        if (!carry.size) return;
        const counts: Counts = new Map();
        takeCarry(counts);
        bumpIntakes(pool, counts).then(
          (applied) => keepCarry(counts, applied),
          () => keepCarry(counts, new Set(), 1000),
        );
      }, delayMs);
      carryTimer.unref();
    }
  };

  const runBatch = async (batch: Pending[]) => {
    const runs = batch.flatMap((p) => p.item.runs);
    const { guards, byItem } = guardsOf(batch.map((p) => p.item));
    const sigs = sigsOf(
      batch.map((p) => p.item),
      byItem,
    );
    const counts: Counts = new Map();
    for (const p of batch) {
      if (!p.item.intakeId || !p.item.runs.length) continue;
      addCount(counts, p.item.intakeId, 1, p.item.runs[p.item.runs.length - 1]!.at.toISOString());
    }
    const own = new Map(counts);
    takeCarry(counts);
    const answer = (created: Array<{ runId: string; finished: boolean } | null>, stale: (item: number) => boolean, replayed: Set<number> = new Set()) => {
      let k = 0;
      // A stale item was counted on its intake with the batch, and is counted again when it is decided
      // anew; a replayed one was not accepted.
      const uncount: Counts = new Map();
      for (const [n, p] of batch.entries()) {
        if (stale(n) || replayed.has(n)) {
          k += p.item.runs.length;
          if (p.item.intakeId && p.item.runs.length) addCount(uncount, p.item.intakeId, -1, p.item.runs[p.item.runs.length - 1]!.at.toISOString());
          p.resolve(stale(n) ? { runIds: [], duplicates: 0, finished: 0, stale: true } : { runIds: [], duplicates: 0, finished: 0, replayed: true });
          continue;
        }
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
      if (uncount.size) keepCarry(uncount, new Set());
    };
    // This batch's deliveries were not stored: only the counts carried in from earlier batches stay due.
    const fail = (e: unknown) => {
      for (const [id, v] of counts) {
        const mine = own.get(id);
        const n = v.n - (mine?.n ?? 0);
        if (n > 0) addCount(carry, id, n, v.at);
      }
      for (const p of batch) p.reject(e);
    };
    const q = sendTracked(pool);
    try {
      const { created, applied, stale, replayed } =
        runs.length || sigs.list.length
          ? await ingestRows(q, runs, counts, clears, guards, sigs)
          : { created: [], applied: new Set<string>(), stale: new Set<number>(), replayed: new Set<number>() };
      keepCarry(counts, applied);
      answer(created, (n) => byItem[n] !== null && stale.has(byItem[n]!), replayed);
    } catch (e) {
      const cands = candidatesOf(e);
      if (!cands || !outcomeUnknown(q, e)) return fail(e);
      // Sent, no reply: resolved on fresh connections without holding this batch's slot.
      const ids = cands.map((c) => c.runId);
      void existingRuns(pool, ids, Date.now() + outcomeWaitMs).then((found) => {
        if (found === undefined) return fail(new CommitOutcomeUnknownError(`the ingest commit's outcome is unknown: ${(e as Error).message}`, { cause: e }));
        if (!found.size) return fail(e); // nothing of it is stored
        // It landed: answered as a success; its counts (carried ones included) were applied with it.
        keepCarry(counts, new Set(counts.keys()));
        // A guarded item none of whose runs is stored was a duplicate or stale: it is decided again
        // on a fresh lookup (a duplicate is then answered as one).
        const created = cands.map((c) => (found.has(c.runId) ? c : null));
        let k = 0;
        const none = batch.map((p) => {
          const mine = created.slice(k, (k += p.item.runs.length));
          return mine.length > 0 && mine.every((c) => c === null);
        });
        answer(created, (n) => byItem[n] !== null && none[n]!);
      });
    }
  };

  return (item) =>
    new Promise<IngestResult>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      schedule();
    });
}
