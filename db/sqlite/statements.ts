/** Prepared statements of the SQLite run engine and embedded queue, cached per connection. */
import type { Db } from "../client";

const cache = new WeakMap<Db, ReturnType<typeof prepare>>();

function prepare(db: Db) {
  const c = db.$client;
  return {
    // runs and events
    event: c.prepare(
      `insert into events (id, workspace_id, intake_id, automation_id, node_id, dedupe_scope, dedupe_key, type, envelope, source, received_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing`,
    ),
    insertRun: c.prepare(
      `insert into runs (id, workspace_id, automation_id, version, status, trigger_node_id, event_id, task_id, task_step, retry_of, error, followup_at, created_at, started_at, finished_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, ?, ?, ?, ?, ?)`,
    ),
    useSignature: c.prepare("insert into webhook_signatures (intake_id, signature, expires_at) values (?, ?, ?) on conflict do nothing"),
    intakeCount: c.prepare("update intakes set last_event_at = ?, event_count = event_count + ? where id = ?"),
    intakeHead: c.prepare(
      `select id, workspace_id as workspaceId, kind, automation_id as automationId, node_id as nodeId, connection_id as connectionId,
       line_id as lineId, status, updated_at as updatedAt, config, secret_enc as secretEnc, name from intakes where token = ?`,
    ),
    dataVersion: c.prepare("PRAGMA data_version").pluck(),
    automationHead: c.prepare("select version, enabled, updated_at as u from automations where id = ?"),
    connectionStamp: c.prepare("select updated_at as u from connections where id = ?"),
    usingConnection: c.prepare("select id, version from automations where workspace_id = ? and enabled = 1 and graph like ?"),
    run: c.prepare(
      `select id, workspace_id as workspaceId, automation_id as automationId, version, status, trigger_node_id as triggerNodeId,
       event_id as eventId, task_id as taskId, task_step as taskStep, created_at as createdAt, started_at as startedAt, mode from runs where id = ?`,
    ),
    runStatus: c.prepare("select status from runs where id = ?"),
    eventEnvelope: c.prepare("select envelope from events where id = ?"),
    step: c.prepare(
      "select id, name, output, parent_step_id as parentStepId, state, attempts, logs, started_at as startedAt, created_at as createdAt from run_steps where id = ?",
    ),
    stepExists: c.prepare("select 1 from run_steps where id = ?"),
    upsertStep: c.prepare(
      `insert into run_steps (id, run_id, node_id, name, key, parent_step_id, status, input, output, state, attempts, logs, error, created_at, started_at, finished_at, origin)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (id) do update set status = excluded.status, input = excluded.input, output = excluded.output, state = excluded.state,
       attempts = excluded.attempts, logs = excluded.logs, error = excluded.error, finished_at = excluded.finished_at, origin = excluded.origin`,
    ),
    activeJobs: c.prepare("select count(*) as n from jobs where run_id = ?"),
    leasedOthers: c.prepare("select count(*) as n from jobs where run_id = ? and status = 'leased' and id != ?"),
    setRunStatus: c.prepare("update runs set status = ?, updated_at = ? where id = ? and status in ('running', 'waiting', 'queued')"),
    finishRun: c.prepare(
      `update runs set status = ?, error = ?, finished_at = ?, updated_at = ?, followup_at = case when task_id is not null or ? = 'failed' then ? else followup_at end
       where id = ? and status in ('running', 'waiting', 'queued')`,
    ),
    runJobs: c.prepare("select id, payload from jobs where run_id = ?"),
    deleteRunJobs: c.prepare("delete from jobs where run_id = ?"),
    cancelSteps: c.prepare("update run_steps set status = 'cancelled', finished_at = ? where run_id = ? and status in ('queued', 'running', 'waiting')"),
    // the queue
    insertJob: c.prepare(
      `insert into jobs (id, kind, run_id, step_id, automation_id, payload, status, available_at, lease_owner, lease_token, lease_until, attempts, created_at)
       values (?, 'step', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    // A finished step's job row taken over by its (first) next step: one row rewritten instead of a delete and an insert.
    advanceJob: c.prepare(
      "update jobs set id = ?, step_id = ?, payload = ?, available_at = ?, lease_token = ?, lease_until = ?, attempts = 1, created_at = ? where id = ?",
    ),
    jobLease: c.prepare("select lease_owner as owner, lease_token as token from jobs where id = ?"),
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
    countStop: c.prepare("update jobs set payload = json_set(payload, '$.stops', coalesce(json_extract(payload, '$.stops'), 0) + 1) where id = ?"),
    lease: c.prepare("update jobs set status = 'leased', lease_owner = ?, lease_token = ?, lease_until = ?, attempts = attempts + 1 where id = ?"),
    renew: c.prepare("update jobs set lease_until = ? where lease_owner = ? and status = 'leased'"),
    removeJob: c.prepare("delete from jobs where id = ?"),
    reschedule: c.prepare("update jobs set status = 'queued', available_at = ?, lease_owner = null, lease_token = null, lease_until = null where id = ?"),
    rescheduleFresh: c.prepare(
      "update jobs set status = 'queued', available_at = ?, lease_owner = null, lease_token = null, lease_until = null, attempts = 0 where id = ?",
    ),
    releaseOne: c.prepare(
      "update jobs set status = 'queued', available_at = ?, lease_owner = null, lease_token = null, lease_until = null where id = ? and lease_owner = ?",
    ),
    releaseAll: c.prepare(
      "update jobs set status = 'queued', lease_owner = null, lease_token = null, lease_until = null where lease_owner = ? and status = 'leased'",
    ),
    running: c.prepare(
      `select r.automation_id as a, count(*) as n, coalesce(a.concurrency, 1) as c
       from runs r left join automations a on a.id = r.automation_id where r.status = 'running' group by r.automation_id`,
    ),
    concurrency: c.prepare("select concurrency from automations where id = ?"),
    startRun: c.prepare(
      "update runs set status = 'running', started_at = coalesce(started_at, ?), updated_at = ? where id = ? and status in ('queued', 'waiting')",
    ),
    noWait: c.prepare("PRAGMA busy_timeout = 0"),
    wait: c.prepare(`PRAGMA busy_timeout = ${(c.pragma("busy_timeout", { simple: true }) as number) || 5000}`),
  };
}

export type Statements = ReturnType<typeof prepare>;

export function statements(db: Db): Statements {
  let s = cache.get(db);
  if (!s) {
    s = prepare(db);
    cache.set(db, s);
  }
  return s;
}
