/**
 * Runs, their events and steps, written once for both engines: creating runs outside the ingest hot
 * path (manual/API starts, schedule ticks, line steps, error handlers), reading them, cancelling and
 * retrying, follow-ups (pruning: run-retention.ts). The executor's hot path (claims, step outcomes) and the webhook
 * ingest batches have engine-specific implementations (db/sqlite/engine.ts, db/pg/engine.ts) that
 * write exactly the same rows.
 */
import { and, asc, count, desc, eq, gte, inArray, isNotNull, lte, sql, type SQL } from "drizzle-orm";
import { sortableId } from "../sortable-id";
import { first, type Ctx } from "../store-kit";
import type { EventRow, JobRow, RunRecord, RunStepRow } from "../types";
import { derivedRunsStore } from "./derived-runs";
import { runRetentionStore } from "./run-retention";
import { newRunRow, newStepJob, RETRYABLE } from "./run-rows";
import { cancelledStepRow } from "../step-params";

export { newStepJob };

export type EventSource = EventRow["source"];
export type RunStatus = RunRecord["status"];
export type RunMode = RunRecord["mode"];
export type FinalStatus = "succeeded" | "failed" | "cancelled";
export interface RunError {
  message: string;
  nodeId?: string;
  code?: string;
}
export interface Envelope {
  type: string;
  timestamp: string;
  data: unknown;
}

export interface NewRun {
  workspaceId: string;
  automationId: string;
  version: number;
  triggerNodeId: string;
  envelope: Envelope;
  source: EventSource;
  /** Nodes downstream of the trigger (their steps are queued); none: the run succeeds at once. */
  firstNodes: string[];
  intakeId?: string | null;
  dedupeScope?: string | null;
  dedupeKey?: string | null;
  /** Reuse an existing event (replay) instead of inserting one. */
  eventId?: string;
  taskId?: string | null;
  taskStep?: number | null;
  retryOf?: string | null;
  at: Date;
}

export interface CreatedRun {
  runId: string;
  eventId: string;
  /** No step to run: the run is already `succeeded`. */
  finished: boolean;
}

/** What a finish changed (for usage accounting by the caller). */
export interface FinishedRun {
  run: RunRecord;
  status: FinalStatus;
}

const ACTIVE: RunStatus[] = ["queued", "running", "waiting"];

export const runsStore = {
  // Retries with the current version and test runs: db/stores/derived-runs.ts.
  ...derivedRunsStore,
  // Pruning the history and deleting an automation's runs: db/stores/run-retention.ts.
  ...runRetentionStore,

  /** Event (deduplicated by scope + key) + run + its first steps, atomically. Null: a duplicate event. */
  async create(c: Ctx, r: NewRun): Promise<CreatedRun | null> {
    const { events, runs, jobs, outbox } = c.t;
    return c.tx(async (x) => {
      const iso = r.at.toISOString();
      let eventId = r.eventId;
      if (!eventId) {
        eventId = sortableId("evt");
        const inserted = await x.h
          .insert(events)
          .values({
            id: eventId,
            workspaceId: r.workspaceId,
            intakeId: r.intakeId ?? null,
            automationId: r.automationId,
            nodeId: r.triggerNodeId,
            dedupeScope: r.dedupeKey ? (r.dedupeScope ?? `automation:${r.automationId}`) : null,
            dedupeKey: r.dedupeKey ?? null,
            type: r.envelope.type,
            envelope: r.envelope,
            source: r.source,
            receivedAt: iso,
          })
          .onConflictDoNothing()
          .returning({ id: events.id });
        if (!inserted.length) return null;
      }
      const runId = sortableId("run");
      const finished = r.firstNodes.length === 0;
      await x.h.insert(runs).values(newRunRow(r, { runId, eventId }, iso, finished));
      if (!finished) {
        const atMs = r.at.getTime();
        await x.h.insert(jobs).values(r.firstNodes.map((nodeId) => newStepJob({ runId, automationId: r.automationId, nodeId, parentStepId: null, atMs })));
        if (x.dialect === "postgres") await x.h.insert(outbox).values({ runId, availableAt: atMs, createdAt: atMs }).onConflictDoNothing();
      }
      return { runId, eventId, finished };
    });
  },

  /**
   * Records a delivery that creates no run (a webhook intake creating a task) for deduplication: false
   * when the same scope + key was seen before.
   */
  async recordDelivery(
    c: Ctx,
    d: { id: string; workspaceId: string; intakeId: string; dedupeScope: string; dedupeKey: string; receivedAt: string },
  ): Promise<boolean> {
    const { events } = c.t;
    const rows = await c.h
      .insert(events)
      .values({
        ...d,
        automationId: null,
        nodeId: null,
        type: "core.task.intake",
        envelope: { type: "core.task.intake", timestamp: d.receivedAt, data: null },
        source: "webhook",
      })
      .onConflictDoNothing()
      .returning({ id: events.id });
    return rows.length === 1;
  },

  /** Counts a delivery on its intake (last event time, event count). */
  async touchIntake(c: Ctx, intakeId: string, atIso: string): Promise<void> {
    const { intakes } = c.t;
    await c.h
      .update(intakes)
      .set({ lastEventAt: atIso, eventCount: sql`${intakes.eventCount} + 1` })
      .where(eq(intakes.id, intakeId));
  },

  /** The run started by an earlier event with this dedupe scope + key (idempotent starts). */
  async runOfDedupe(c: Ctx, scope: string, key: string): Promise<string | undefined> {
    const { events, runs } = c.t;
    const ev = await first(
      c.h
        .select({ id: events.id })
        .from(events)
        .where(and(eq(events.dedupeScope, scope), eq(events.dedupeKey, key)))
        .limit(1),
    );
    if (!ev) return undefined;
    return (await first(c.h.select({ id: runs.id }).from(runs).where(eq(runs.eventId, ev.id)).orderBy(asc(runs.createdAt)).limit(1)))?.id;
  },

  async get(c: Ctx, runId: string, workspaceId?: string): Promise<RunRecord | undefined> {
    const { runs } = c.t;
    return first(
      c.h
        .select()
        .from(runs)
        .where(workspaceId ? and(eq(runs.id, runId), eq(runs.workspaceId, workspaceId)) : eq(runs.id, runId))
        .limit(1),
    );
  },

  /** Newest first, keyset-paginated by (createdAt, id). */
  async list(
    c: Ctx,
    workspaceId: string,
    f: { automationId?: string; status?: RunStatus; taskId?: string; mode?: RunMode },
    opts: { limit: number; before?: { createdAt: string; id: string } | null },
  ): Promise<RunRecord[]> {
    const { runs } = c.t;
    // With an automation, its index (or the status one) must drive the query: written as an expression,
    // the workspace check (an automation lives in one workspace) cannot pull SQLite's planner, which has
    // no statistics, onto the workspace index, where it would filter 1 row in N (docs/engine.md).
    const conds: SQL[] = [f.automationId ? sql`(${runs.workspaceId} || '') = ${workspaceId}` : eq(runs.workspaceId, workspaceId)];
    if (f.automationId) conds.push(eq(runs.automationId, f.automationId));
    if (f.status) conds.push(eq(runs.status, f.status));
    if (f.taskId) conds.push(eq(runs.taskId, f.taskId));
    // Not in any index: test runs are few next to production ones, so the filter skips a handful of rows.
    if (f.mode) conds.push(eq(runs.mode, f.mode));
    const b = opts.before;
    // A row-value comparison (SQL standard; SQLite ≥ 3.15, PostgreSQL) is a range on the index's
    // (created_at, id) tail on both engines; the equivalent OR form made SQLite walk every newer row.
    if (b) conds.push(sql`(${runs.createdAt}, ${runs.id}) < (${b.createdAt}, ${b.id})`);
    return c.h
      .select()
      .from(runs)
      .where(and(...conds))
      .orderBy(desc(runs.createdAt), desc(runs.id))
      .limit(opts.limit);
  },

  async event(c: Ctx, eventId: string, workspaceId?: string): Promise<EventRow | undefined> {
    const { events } = c.t;
    return first(
      c.h
        .select()
        .from(events)
        .where(workspaceId ? and(eq(events.id, eventId), eq(events.workspaceId, workspaceId)) : eq(events.id, eventId))
        .limit(1),
    );
  },

  async steps(c: Ctx, runId: string): Promise<RunStepRow[]> {
    const { runSteps } = c.t;
    return c.h.select().from(runSteps).where(eq(runSteps.runId, runId)).orderBy(asc(runSteps.createdAt), asc(runSteps.id));
  },

  /** Steps queued or leased but not started (no step row yet). */
  async pendingJobs(c: Ctx, runId: string): Promise<JobRow[]> {
    const { jobs } = c.t;
    return c.h.select().from(jobs).where(eq(jobs.runId, runId));
  },

  /**
   * Ends an active run with `status`: its pending steps are recorded `cancelled` (so a retry can queue
   * them again) and removed from the queue, running ones are marked cancelled. Null when the run was
   * not active any more. `nodeInfo` names the nodes of pending steps.
   */
  async finish(
    c: Ctx,
    runId: string,
    status: FinalStatus,
    error: RunError | null,
    at: Date,
    nodeInfo: (nodeId: string) => { name: string; key: string },
  ): Promise<FinishedRun | null> {
    const { runs, runSteps, jobs } = c.t;
    const iso = at.toISOString();
    return c.tx(async (x) => {
      const [run] = await x.h
        .update(runs)
        .set({ status, error, finishedAt: iso, updatedAt: iso })
        .where(and(eq(runs.id, runId), inArray(runs.status, ACTIVE)))
        .returning();
      if (!run) return null;
      if (run.taskId || status === "failed") await x.h.update(runs).set({ followupAt: iso }).where(eq(runs.id, runId));
      if (status !== "succeeded") {
        const pending = await x.h.select().from(jobs).where(eq(jobs.runId, runId));
        const existing = new Set(
          pending.length
            ? (
                await x.h
                  .select({ id: runSteps.id })
                  .from(runSteps)
                  .where(
                    inArray(
                      runSteps.id,
                      pending.map((j) => j.id),
                    ),
                  )
              ).map((r) => r.id)
            : [],
        );
        const unstarted = pending.filter((j) => !existing.has(j.id));
        if (unstarted.length) {
          await x.h.insert(runSteps).values(
            unstarted.map((j) => {
              const p = j.payload as { nodeId: string; parentStepId: string | null };
              return cancelledStepRow({ id: j.id, runId, nodeId: p.nodeId, parentStepId: p.parentStepId }, nodeInfo(p.nodeId), iso);
            }),
          );
        }
        await x.h.delete(jobs).where(eq(jobs.runId, runId));
        await x.h
          .update(runSteps)
          .set({ status: "cancelled", finishedAt: iso })
          .where(and(eq(runSteps.runId, runId), inArray(runSteps.status, ["queued", "running", "waiting"])));
      }
      return { run, status };
    });
  },

  /**
   * Retry from the failed step with the run's own version: failed and cancelled steps are queued again
   * (same step ids, attempts continue), succeeded ones keep their outputs. Returns how many steps were
   * queued (0: the run is not failed or cancelled any more, or has no such step), or "retried" when the
   * run was already retried as a new run (retry with the current version). The run row is locked first,
   * as in `createDerived`, so a retry of each kind racing on one run cannot both happen.
   */
  async requeue(c: Ctx, runId: string, at: Date): Promise<number | "retried"> {
    const { runs, runSteps, jobs, outbox } = c.t;
    const iso = at.toISOString();
    const atMs = at.getTime();
    return c.tx(async (x) => {
      const [run] = await x.h
        .update(runs)
        .set({ updatedAt: sql`${runs.updatedAt}` })
        .where(and(eq(runs.id, runId), inArray(runs.status, RETRYABLE)))
        .returning();
      if (!run) return 0;
      if (await first(x.h.select({ id: runs.id }).from(runs).where(eq(runs.retryOf, runId)).limit(1))) return "retried";
      const redo = await x.h
        .select()
        .from(runSteps)
        .where(and(eq(runSteps.runId, runId), inArray(runSteps.status, ["failed", "cancelled"])));
      if (!redo.length) return 0;
      await x.h
        .insert(jobs)
        .values(redo.map((st) => newStepJob({ id: st.id, runId, automationId: run.automationId, nodeId: st.nodeId, parentStepId: st.parentStepId, atMs })));
      await x.h
        .update(runSteps)
        .set({ status: "queued", error: null, finishedAt: null })
        .where(
          inArray(
            runSteps.id,
            redo.map((st) => st.id),
          ),
        );
      // The attempts these steps make next are started by hand: mark the attempt each last made, so the
      // time from it to the next is not taken for an automatic retry's backoff (services/runs/timing.ts).
      for (const st of redo) {
        const last = st.attempts.at(-1);
        if (!last) continue;
        await x.h
          .update(runSteps)
          .set({ attempts: [...st.attempts.slice(0, -1), { ...last, manualRetryAt: iso }] })
          .where(eq(runSteps.id, st.id));
      }
      await x.h.update(runs).set({ status: "queued", error: null, finishedAt: null, followupAt: null, updatedAt: iso }).where(eq(runs.id, runId));
      if (x.dialect === "postgres") await x.h.insert(outbox).values({ runId, availableAt: atMs, createdAt: atMs }).onConflictDoNothing();
      return redo.length;
    });
  },

  async cancelledAmong(c: Ctx, runIds: string[]): Promise<string[]> {
    if (!runIds.length) return [];
    const { runs } = c.t;
    const rows = await c.h
      .select({ id: runs.id })
      .from(runs)
      .where(and(eq(runs.status, "cancelled"), inArray(runs.id, runIds)));
    return rows.map((r) => r.id);
  },

  /** Finished runs whose follow-ups are due (set before `beforeIso`). */
  async followupsDue(c: Ctx, beforeIso: string, limit: number): Promise<RunRecord[]> {
    const { runs } = c.t;
    return c.h
      .select()
      .from(runs)
      .where(and(isNotNull(runs.followupAt), lte(runs.followupAt, beforeIso)))
      .orderBy(asc(runs.followupAt))
      .limit(limit);
  },

  async clearFollowup(c: Ctx, runId: string): Promise<void> {
    const { runs } = c.t;
    await c.h.update(runs).set({ followupAt: null }).where(eq(runs.id, runId));
  },

  /** Due steps and the age of the oldest (queue depth for /metrics). */
  async queueDepth(c: Ctx, nowMs: number): Promise<{ depth: number; oldestAgeMs: number }> {
    const { jobs } = c.t;
    const r = await first(
      c.h
        .select({ n: count(), oldest: sql<number | null>`min(${jobs.availableAt})` })
        .from(jobs)
        .where(and(eq(jobs.status, "queued"), lte(jobs.availableAt, nowMs))),
    );
    const oldest = r?.oldest === null || r?.oldest === undefined ? null : Number(r.oldest);
    return { depth: r?.n ?? 0, oldestAgeMs: oldest ? nowMs - oldest : 0 };
  },

  /**
   * A workspace's production runs that failed and were created at or after `sinceIso`, counted up to
   * `cap` (the sidebar's badge, REST recent-failures). One range of runs_workspace_status_idx
   * (workspace, status, created_at) on both engines; `mode` is checked on the rows of that range (failed
   * test runs are skipped, not counted), and the cap bounds it even in a storm of failures.
   */
  async countFailedSince(c: Ctx, workspaceId: string, sinceIso: string, cap: number): Promise<number> {
    const { runs } = c.t;
    const hits = c.h
      .select({ one: sql<number>`1`.as("one") })
      .from(runs)
      .where(and(eq(runs.workspaceId, workspaceId), eq(runs.status, "failed"), gte(runs.createdAt, sinceIso), eq(runs.mode, "production")))
      .limit(cap)
      .as("hits");
    const r = await first(c.h.select({ n: count() }).from(hits));
    return Number(r?.n ?? 0);
  },

  async countByStatus(c: Ctx): Promise<Array<{ status: RunStatus; n: number }>> {
    const { runs } = c.t;
    return c.h.select({ status: runs.status, n: count() }).from(runs).groupBy(runs.status);
  },
};
