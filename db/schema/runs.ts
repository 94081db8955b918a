import { sql } from "drizzle-orm";
import { sqliteTable, text, integer, index, uniqueIndex } from "drizzle-orm/sqlite-core";

/** A received event (one per matched trigger event, or per manual/API/line start). */
export const events = sqliteTable(
  "events",
  {
    id: text().primaryKey(),
    workspaceId: text().notNull(),
    intakeId: text(),
    automationId: text(),
    nodeId: text(),
    /** Dedupe scope: `<intakeId>` (trigger intake), `<intakeId>:<automationId>:<nodeId>` (shared), `manual:<automationId>`. */
    dedupeScope: text(),
    /** Dedupe key within the scope; a repeat starts no run (null = no dedupe). */
    dedupeKey: text(),
    type: text().notNull(),
    /** The full envelope `{type, timestamp, data}`. */
    envelope: text({ mode: "json" }).$type<{ type: string; timestamp: string; data: unknown }>().notNull(),
    /** `test`: a test run's trigger event taken from pinned data (editor "run step" / "run from here"). */
    source: text({ enum: ["webhook", "manual", "api", "schedule", "line", "error_handler", "replay", "test"] }).notNull(),
    receivedAt: text().notNull(),
  },
  (t) => [
    uniqueIndex("events_dedupe_idx")
      .on(t.dedupeScope, t.dedupeKey)
      .where(sql`dedupe_key is not null`),
    index("events_automation_idx").on(t.automationId, t.receivedAt),
  ],
);

export const runs = sqliteTable(
  "runs",
  {
    id: text().primaryKey(),
    workspaceId: text().notNull(),
    automationId: text().notNull(),
    version: integer().notNull(),
    status: text({ enum: ["queued", "running", "waiting", "succeeded", "failed", "cancelled"] }).notNull(),
    triggerNodeId: text().notNull(),
    eventId: text().notNull(),
    /** Set when the run is a step of a task on a line. */
    taskId: text(),
    taskStep: integer(),
    /**
     * The run this one retries (retry with the current version: a new run on the current version that
     * reuses the original's succeeded steps). At most one retry per run (unique), so a double click
     * cannot start two.
     */
    retryOf: text(),
    /**
     * `production` (every trigger, start, replay, line step, error handler and retry), or `test`: started
     * from the editor at one node with earlier data (last run or pinned); never counted as a production
     * run, never advances a task, never starts an error handler. Pinned data is only ever read by tests.
     */
    mode: text({ enum: ["production", "test"] })
      .notNull()
      .default("production"),
    /** Test runs: the node it started at, and whether only that step runs (`single`) or everything after it too. */
    test: text({ mode: "json" }).$type<{ nodeId: string; single: boolean } | null>(),
    error: text({ mode: "json" }).$type<{ message: string; nodeId?: string; code?: string } | null>(),
    /**
     * Set when a finished run still has follow-ups to do after its commit (advance its task on a line,
     * start the automation's error handler); cleared once they are done. Idempotent, so a crash between
     * the two only repeats them (see server/runner/follow-ups.ts).
     */
    followupAt: text(),
    createdAt: text().notNull(),
    startedAt: text(),
    finishedAt: text(),
    updatedAt: text().notNull(),
  },
  (t) => [
    // Every list order is (created_at, id) newest first, so each listing index ends with both: a
    // page, first or deep (keyset cursor), is one index range (docs/benchmarks.md, history at scale).
    index("runs_automation_idx").on(t.automationId, t.createdAt, t.id),
    index("runs_workspace_created_idx").on(t.workspaceId, t.createdAt, t.id),
    index("runs_task_idx")
      .on(t.taskId)
      .where(sql`task_id is not null`),
    // Running runs per automation (claims), and an automation's runs in one status (filtered lists).
    index("runs_status_automation_idx").on(t.status, t.automationId, t.createdAt, t.id),
    // A workspace's runs in one status (the runs page's filter; a rare status would otherwise walk the whole history).
    index("runs_workspace_status_idx").on(t.workspaceId, t.status, t.createdAt, t.id),
    // Runs of an event (idempotent starts, replays; pruning deletes an event with its last run).
    index("runs_event_idx").on(t.eventId),
    index("runs_followup_idx")
      .on(t.followupAt)
      .where(sql`followup_at is not null`),
    uniqueIndex("runs_retry_of_idx")
      .on(t.retryOf)
      .where(sql`retry_of is not null`),
  ],
);

export interface StepAttempt {
  startedAt: string;
  finishedAt?: string;
  error?: string;
  retryable?: boolean;
  durationMs?: number;
  /**
   * Set on a step's last attempt when a person retried the run after it (the time they did): the next
   * attempt was started by hand, so the time in between is not an automatic retry's backoff.
   */
  manualRetryAt?: string;
}

/**
 * Where a step's output came from when it did not run in this run (`null`: it ran here): `run` — the
 * succeeded step of an earlier run (retry with the current version reuses them; a test run takes the
 * upstream outputs of the last run), recorded with the version it ran on; `pinned` — the node's pinned
 * output (test runs only).
 */
export type StepOrigin = { kind: "run"; runId: string; stepId: string; version: number } | { kind: "pinned"; version: number };

/** One node execution inside a run. */
export const runSteps = sqliteTable(
  "run_steps",
  {
    id: text().primaryKey(),
    runId: text()
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    nodeId: text().notNull(),
    name: text().notNull(),
    key: text().notNull(),
    /** The step whose envelope reached this one (null for the trigger step). */
    parentStepId: text(),
    status: text({ enum: ["queued", "running", "waiting", "succeeded", "failed", "cancelled", "skipped"] }).notNull(),
    /** Resolved inputs with secrets masked. */
    input: text({ mode: "json" }).$type<unknown>(),
    /** Emitted envelope. */
    output: text({ mode: "json" }).$type<unknown>(),
    /** State kept across `wait` reschedules. */
    state: text({ mode: "json" }).$type<unknown>(),
    attempts: text({ mode: "json" }).$type<StepAttempt[]>().notNull(),
    logs: text({ mode: "json" }).$type<Array<{ at: string; level: string; message: string; fields?: unknown }>>().notNull(),
    error: text(),
    /** Set when the output was taken over rather than produced here (see StepOrigin). */
    origin: text({ mode: "json" }).$type<StepOrigin | null>(),
    createdAt: text().notNull(),
    startedAt: text(),
    finishedAt: text(),
  },
  (t) => [index("run_steps_run_idx").on(t.runId, t.createdAt)],
);

/**
 * The durable work queue (embedded implementation of the runner's queue interface).
 * Claims are a guarded UPDATE with a lease; expired leases are reclaimed.
 */
export const jobs = sqliteTable(
  "jobs",
  {
    id: text().primaryKey(),
    kind: text().notNull(),
    runId: text(),
    stepId: text(),
    automationId: text(),
    payload: text({ mode: "json" }).$type<Record<string, unknown>>(),
    status: text({ enum: ["queued", "leased", "done", "failed"] }).notNull(),
    availableAt: integer().notNull(),
    leaseOwner: text(),
    /** Changes at every claim: a step's outcome is written only under the token it was claimed with (fencing). */
    leaseToken: text(),
    leaseUntil: integer(),
    attempts: integer().notNull().default(0),
    createdAt: integer().notNull(),
  },
  (t) => [index("jobs_claim_idx").on(t.status, t.availableAt), index("jobs_run_idx").on(t.runId)],
);

/**
 * Scale-out mode: one row per run with work to publish to the distributed queue, written in the same
 * transaction as that work and deleted once published; a sweeper republishes rows left behind (a
 * crash after commit, Redis unreachable). Unused by the embedded queue.
 */
export const outbox = sqliteTable("outbox", {
  runId: text().primaryKey(),
  availableAt: integer().notNull(),
  createdAt: integer().notNull(),
});
