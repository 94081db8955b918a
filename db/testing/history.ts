/**
 * Bench-only: a run history of realistic shape written straight into the tables in large batches
 * (prepared statements in one transaction per batch on SQLite, `unnest` arrays on PostgreSQL), so
 * `npm run bench` can hold a million runs without pushing them through the HTTP door or the runner.
 *
 * Each run: its event (an Alertmanager notification, ~1.1 KB), three steps with the inputs and
 * outputs the engine records for filter → HTTP call → tracker issue, attempts, a log line; 5 % fail
 * at the HTTP step (three attempts, the last step cancelled), 0.5 % are cancelled. Ids are the same
 * time-ordered shape as db/sortable-id.ts, derived from the creation time. Run `i` of `total` is
 * placed at a pseudo-random point of the span (a fixed permutation), so every prefix of the history
 * (10k, 100k, …) is spread over the whole span, like real traffic.
 */
import type { OpenedStorage } from "../open";
import type { PgBackend } from "../pg/backend";

export interface HistoryPlan {
  /** Automations runs are spread over (round robin), each with its workspace. */
  automations: Array<{ id: string; workspaceId: string; version: number }>;
  /** Total size the history will have once complete (fixes the permutation). */
  total: number;
  /** Runs are created within [end - spanMs, end). */
  end: Date;
  spanMs: number;
}

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
function idAt(prefix: string, ms: number, n: number): string {
  let r = "";
  let x = (n * 2654435761) >>> 0;
  for (let i = 0; i < 8; i++) {
    r += ALPHABET[x % 36];
    x = Math.floor(x / 36) + (i + 1) * 7919 * (n % 9973);
  }
  return `${prefix}_${ms.toString(36).padStart(9, "0")}${(n % 46656).toString(36).padStart(3, "0")}${r}`;
}

/** A multiplier coprime with `total`, so i → i·P mod total is a permutation. */
function stride(total: number): number {
  const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);
  let p = Math.floor(total * 0.6180339887) | 1;
  while (gcd(p, total) !== 1) p += 2;
  return p;
}

const ALERT = (n: number, at: string) => ({
  receiver: "ops-webhook",
  status: "firing",
  alerts: [
    {
      status: "firing",
      labels: { alertname: `HighErrorRate${n % 37}`, severity: n % 5 ? "warning" : "critical", team: "payments", instance: `api-${n % 50}.prod:9100` },
      annotations: { summary: `Error rate above 5% on api-${n % 50}`, description: "5xx responses over the last 5 minutes exceed the SLO budget burn rate." },
      startsAt: at,
      endsAt: "0001-01-01T00:00:00Z",
      generatorURL: "http://prometheus.internal:9090/graph?g0.expr=rate%28http_errors_total%5B5m%5D%29+%3E+0.05&g0.tab=1",
      fingerprint: ((n * 2654435761) >>> 0).toString(16).padStart(16, "0"),
    },
  ],
  groupLabels: { alertname: `HighErrorRate${n % 37}` },
  commonLabels: { alertname: `HighErrorRate${n % 37}`, severity: "warning", team: "payments" },
  externalURL: "http://alertmanager.internal:9093",
  version: "4",
  groupKey: `{}:{alertname="HighErrorRate${n % 37}"}`,
  truncatedAlerts: 0,
});

type Row = Record<string, string | number | null>;

/** The rows of run number `n` (0-based) of the plan. */
export function historyRows(plan: HistoryPlan, n: number): { event: Row; run: Row; steps: Row[]; status: string } {
  const a = plan.automations[n % plan.automations.length]!;
  const slot = (n * stride(plan.total)) % plan.total;
  const ms = plan.end.getTime() - plan.spanMs + Math.floor((slot * plan.spanMs) / plan.total);
  const iso = (d: number) => new Date(ms + d).toISOString();
  const roll = (n * 7919) % 1000;
  const status = roll < 50 ? "failed" : roll < 55 ? "cancelled" : "succeeded";
  const eventId = idAt("evt", ms, n);
  const runId = idAt("run", ms, n + 1);
  const s = [idAt("stp", ms + 30, n + 2), idAt("stp", ms + 45, n + 3), idAt("stp", ms + 410, n + 4)];
  const env = {
    type: "core.webhook",
    timestamp: iso(0),
    data: { body: ALERT(n, iso(-60_000)), headers: { "content-type": "application/json", "user-agent": "Alertmanager/0.27.0" }, query: {} },
  };
  const event: Row = {
    id: eventId,
    workspace_id: a.workspaceId,
    intake_id: null,
    automation_id: a.id,
    node_id: "trigger",
    dedupe_scope: null,
    dedupe_key: null,
    type: "core.webhook",
    envelope: JSON.stringify(env),
    source: "webhook",
    received_at: iso(0),
  };
  const failed = status === "failed";
  const ended = failed ? 1_900 : status === "cancelled" ? 120 : 620;
  const run: Row = {
    id: runId,
    workspace_id: a.workspaceId,
    automation_id: a.id,
    version: a.version,
    status,
    trigger_node_id: "trigger",
    event_id: eventId,
    task_id: null,
    task_step: null,
    retry_of: null,
    error: failed ? JSON.stringify({ message: "POST https://tracker.example/rest/api/2/issue answered 503 Service Unavailable", nodeId: "create" }) : null,
    followup_at: null,
    created_at: iso(0),
    started_at: iso(28),
    finished_at: iso(ended),
    updated_at: iso(ended),
  };
  const step = (i: number, p: Partial<Row>): Row => ({
    id: s[i]!,
    run_id: runId,
    node_id: ["gate", "enrich", "create"][i]!,
    name: ["onlyFiring", "lookUpOwner", "openTicket"][i]!,
    key: ["core.filter", "core.http", "tracker.createIssue"][i]!,
    parent_step_id: i ? s[i - 1]! : null,
    status: "succeeded",
    input: null,
    output: null,
    state: "null",
    attempts: "[]",
    logs: "[]",
    error: null,
    created_at: iso([30, 45, 410][i]!),
    started_at: iso([30, 45, 410][i]!),
    finished_at: iso([44, 400, 610][i]!),
    ...p,
  });
  const steps: Row[] = [
    step(0, {
      input: JSON.stringify({ condition: true }),
      output: JSON.stringify({ type: "core.filter", timestamp: iso(44), data: { passed: true } }),
      attempts: JSON.stringify([{ startedAt: iso(30), finishedAt: iso(44), durationMs: 14 }]),
    }),
  ];
  if (status === "cancelled") {
    steps.push(step(1, { status: "cancelled", finished_at: iso(120), attempts: JSON.stringify([{ startedAt: iso(45) }]) }));
  } else {
    const call = {
      method: "GET",
      url: `https://cmdb.example/api/services/api-${n % 50}`,
      headers: { authorization: "••••••", accept: "application/json" },
      body: null,
      timeoutMs: 10000,
    };
    steps.push(
      step(1, {
        input: JSON.stringify(call),
        output: JSON.stringify({
          type: "core.http.response",
          timestamp: iso(400),
          data: {
            status: 200,
            headers: { "content-type": "application/json" },
            body: { service: `api-${n % 50}`, owner: "payments-oncall", tier: 1, runbook: "https://wiki.example/runbooks/api" },
          },
        }),
        attempts: JSON.stringify([{ startedAt: iso(45), finishedAt: iso(400), durationMs: 355 }]),
        logs: JSON.stringify([{ at: iso(400), level: "info", message: "GET cmdb.example → 200 in 355 ms" }]),
      }),
    );
    const issue = {
      project: "OPS",
      issueType: "Incident",
      summary: `[warning] Error rate above 5% on api-${n % 50}`,
      description: "5xx responses over the last 5 minutes exceed the SLO budget burn rate.\nOwner: payments-oncall\nRunbook: https://wiki.example/runbooks/api",
      labels: ["alertmanager", "payments"],
    };
    steps.push(
      failed
        ? step(2, {
            status: "failed",
            input: JSON.stringify(issue),
            error: String(run.error && JSON.parse(run.error as string).message),
            attempts: JSON.stringify(
              [0, 1, 2].map((k) => ({
                startedAt: iso(410 + k * 500),
                finishedAt: iso(450 + k * 500),
                error: "503 Service Unavailable",
                retryable: true,
                durationMs: 40,
              })),
            ),
            logs: JSON.stringify([{ at: iso(1_900), level: "error", message: "tracker answered 503 three times" }]),
            finished_at: iso(1_900),
          })
        : step(2, {
            input: JSON.stringify(issue),
            output: JSON.stringify({
              type: "tracker.issue.created",
              timestamp: iso(610),
              data: { key: `OPS-${n}`, id: String(10_000 + n), url: `https://tracker.example/browse/OPS-${n}` },
            }),
            attempts: JSON.stringify([{ startedAt: iso(410), finishedAt: iso(610), durationMs: 200 }]),
          }),
    );
  }
  return { event, run, steps, status };
}

const EVENT_COLS = ["id", "workspace_id", "intake_id", "automation_id", "node_id", "dedupe_scope", "dedupe_key", "type", "envelope", "source", "received_at"];
const RUN_COLS = [
  "id",
  "workspace_id",
  "automation_id",
  "version",
  "status",
  "trigger_node_id",
  "event_id",
  "task_id",
  "task_step",
  "retry_of",
  "error",
  "followup_at",
  "created_at",
  "started_at",
  "finished_at",
  "updated_at",
];
const STEP_COLS = [
  "id",
  "run_id",
  "node_id",
  "name",
  "key",
  "parent_step_id",
  "status",
  "input",
  "output",
  "state",
  "attempts",
  "logs",
  "error",
  "created_at",
  "started_at",
  "finished_at",
];
const PG_TYPES: Record<string, string> = {
  envelope: "json",
  input: "json",
  output: "json",
  state: "json",
  attempts: "json",
  logs: "json",
  version: "bigint",
  task_step: "bigint",
};
/** runs.error is JSON, run_steps.error text. */
const pgType = (table: string, col: string) => (table === "runs" && col === "error" ? "json" : PG_TYPES[col]);

/** Writes runs number `from` … `to - 1` of the plan; returns how many runs by status were written. */
export async function seedHistory(storage: OpenedStorage, plan: HistoryPlan, from: number, to: number, batch = 5000): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (let lo = from; lo < to; lo += batch) {
    const events: Row[] = [];
    const runs: Row[] = [];
    const steps: Row[] = [];
    for (let n = lo; n < Math.min(to, lo + batch); n++) {
      const r = historyRows(plan, n);
      events.push(r.event);
      runs.push(r.run);
      steps.push(...r.steps);
      counts[r.status] = (counts[r.status] ?? 0) + 1;
    }
    if (storage.sqlite) {
      const c = storage.sqlite.$client;
      const ins = (table: string, cols: string[]) => c.prepare(`insert into ${table} (${cols.join(", ")}) values (${cols.map((k) => `@${k}`).join(", ")})`);
      const [e, r, s] = [ins("events", EVENT_COLS), ins("runs", RUN_COLS), ins("run_steps", STEP_COLS)];
      c.transaction(() => {
        for (const x of events) e.run(x);
        for (const x of runs) r.run(x);
        for (const x of steps) s.run(x);
      })();
      // Fold the WAL back into the file after every batch: back-to-back bulk transactions never leave the
      // background checkpointer a moment in which the WAL can restart, and 1M runs grew it past 30 GB.
      // Busy (the background checkpointer is at it): the next batch tries again.
      c.pragma("wal_checkpoint(TRUNCATE)");
    } else {
      const pool = (storage.backend as PgBackend).pool;
      const client = await pool.connect();
      const ins = (table: string, cols: string[], rows: Row[]) => {
        const arrays = cols.map((k, i) => `$${i + 1}::${pgType(table, k) === "bigint" ? "bigint" : "text"}[]`).join(", ");
        const select = cols.map((k) => (pgType(table, k) === "json" ? `${k}::json` : k)).join(", ");
        return client.query(
          `insert into ${table} (${cols.join(", ")}) select ${select} from unnest(${arrays}) as u(${cols.join(", ")})`,
          cols.map((k) => rows.map((x) => x[k] ?? null)),
        );
      };
      try {
        await client.query("begin");
        await ins("events", EVENT_COLS, events);
        await ins("runs", RUN_COLS, runs);
        await ins("run_steps", STEP_COLS, steps);
        await client.query("commit");
      } catch (err) {
        await client.query("rollback").catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    }
  }
  return counts;
}

/** Hourly usage counters for every workspace of the plan over `days` days before `end` (what the runner's flushes leave behind). */
export function usageRows(plan: HistoryPlan, days: number): Array<{ workspaceId: string; bucket: string; metric: string; value: number }> {
  const out: Array<{ workspaceId: string; bucket: string; metric: string; value: number }> = [];
  const workspaces = [...new Set(plan.automations.map((a) => a.workspaceId))];
  const endHour = Math.floor(plan.end.getTime() / 3_600_000);
  for (const ws of workspaces) {
    for (let h = endHour - days * 24; h < endHour; h++) {
      const bucket = new Date(h * 3_600_000).toISOString();
      const runs = 40 + (h % 17);
      const v: Record<string, number> = {
        "runs.succeeded": runs - 2,
        "runs.failed": 2,
        "steps.succeeded": runs * 3 - 4,
        "steps.failed": 2,
        "steps.cancelled": 2,
        run_ms: runs * 640,
        "events.received": runs,
        "api.calls": 5 + (h % 7),
      };
      for (const [metric, value] of Object.entries(v)) out.push({ workspaceId: ws, bucket, metric, value });
    }
  }
  return out;
}
