/**
 * Runs made from earlier work (part of the runs store, `store.runs.*`): a retry with the current
 * version (a new run reusing the failed run's succeeded steps) and test runs (upstream outputs from the
 * last run or pinned data). Seeds are recorded as succeeded steps with their `origin`; the steps after
 * them are queued as usual, so the executor reads seeds through the normal parent chain.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { sortableId } from "../sortable-id";
import { first, type Ctx } from "../store-kit";
import type { StepAttempt, StepOrigin } from "../types";
import { newRunRow, newStepJob, RETRYABLE } from "./run-rows";
import type { Envelope, EventSource } from "./runs";

/**
 * A run made from earlier work rather than from a trigger alone: a retry with the current version
 * (reused steps of the failed run) or a test run (upstream outputs from the last run or pinned data).
 * `seeds` are recorded as succeeded steps with their `origin`; `start` are the steps queued.
 */
export interface DerivedRun {
  workspaceId: string;
  automationId: string;
  version: number;
  triggerNodeId: string;
  /** Reuse an event (retry, test from the last run) or record a new one (a pinned trigger event). */
  event: { id: string } | { envelope: Envelope; source: EventSource };
  /** The failed or cancelled run this one retries: it must still be so, and not retried yet. */
  retryOf?: string | null;
  taskId?: string | null;
  taskStep?: number | null;
  mode: "production" | "test";
  test?: { nodeId: string; single: boolean } | null;
  /** Steps taken over: `ref` names a seed for `parentRef`s of later seeds and of `start` entries. */
  seeds: Array<{ ref: string; parentRef: string | null; nodeId: string; name: string; key: string; input: unknown; output: Envelope; origin: StepOrigin }>;
  /** Steps to run (none: the run succeeds at once). */
  start: Array<{ nodeId: string; parentRef: string | null }>;
  at: Date;
}

export type DerivedResult = { runId: string; eventId: string; finished: boolean } | { refused: "not_retryable" | "retried"; retriedBy?: string };

export const derivedRunsStore = {
  /**
   * Creates a derived run (see DerivedRun) in one transaction: its event (when new), the run, the seed
   * steps and the queued steps. With `retryOf`, the retried run is locked and must still be failed or
   * cancelled and not retried yet (a run is retried at most once; a retry of the retry continues the chain).
   */
  async createDerived(c: Ctx, r: DerivedRun): Promise<DerivedResult> {
    const { events, runs, runSteps, jobs, outbox } = c.t;
    return c.tx(async (x): Promise<DerivedResult> => {
      const iso = r.at.toISOString();
      const atMs = r.at.getTime();
      if (r.retryOf) {
        const locked = await x.h
          .update(runs)
          .set({ updatedAt: sql`${runs.updatedAt}` })
          .where(and(eq(runs.id, r.retryOf), inArray(runs.status, RETRYABLE)))
          .returning({ id: runs.id });
        if (!locked.length) return { refused: "not_retryable" };
        const prior = await first(x.h.select({ id: runs.id }).from(runs).where(eq(runs.retryOf, r.retryOf)).limit(1));
        if (prior) return { refused: "retried", retriedBy: prior.id };
      }
      let eventId: string;
      if ("id" in r.event) eventId = r.event.id;
      else {
        eventId = sortableId("evt");
        await x.h.insert(events).values({
          id: eventId,
          workspaceId: r.workspaceId,
          intakeId: null,
          automationId: r.automationId,
          nodeId: r.triggerNodeId,
          dedupeScope: null,
          dedupeKey: null,
          type: r.event.envelope.type,
          envelope: r.event.envelope,
          source: r.event.source,
          receivedAt: iso,
        });
      }
      const runId = sortableId("run");
      const finished = r.start.length === 0;
      await x.h.insert(runs).values({ ...newRunRow(r, { runId, eventId }, iso, finished), mode: r.mode, test: r.test ?? null });
      const ids = new Map<string, string>();
      for (const sd of r.seeds) ids.set(sd.ref, sortableId("stp"));
      const idOf = (ref: string | null) => (ref === null ? null : (ids.get(ref) ?? null));
      if (r.seeds.length) {
        await x.h.insert(runSteps).values(
          r.seeds.map((sd) => ({
            id: ids.get(sd.ref)!,
            runId,
            nodeId: sd.nodeId,
            name: sd.name,
            key: sd.key,
            parentStepId: idOf(sd.parentRef),
            status: "succeeded" as const,
            input: sd.input ?? null,
            output: sd.output,
            state: null,
            attempts: [],
            logs: [],
            error: null,
            origin: sd.origin,
            createdAt: iso,
            startedAt: null,
            finishedAt: iso,
          })),
        );
      }
      if (!finished) {
        await x.h
          .insert(jobs)
          .values(r.start.map((st) => newStepJob({ runId, automationId: r.automationId, nodeId: st.nodeId, parentStepId: idOf(st.parentRef), atMs })));
        if (x.dialect === "postgres") await x.h.insert(outbox).values({ runId, availableAt: atMs, createdAt: atMs }).onConflictDoNothing();
      }
      return { runId, eventId, finished };
    });
  },

  /** The run that retried this one (retry with the current version), if any. */
  async retriedBy(c: Ctx, runId: string): Promise<string | undefined> {
    const { runs } = c.t;
    return (await first(c.h.select({ id: runs.id }).from(runs).where(eq(runs.retryOf, runId)).limit(1)))?.id;
  },

  /** Attempt timings of the steps of some runs (working time in lists), without inputs or outputs. */
  async stepTimings(c: Ctx, runIds: string[]): Promise<Array<{ runId: string; attempts: StepAttempt[]; origin: StepOrigin | null }>> {
    if (!runIds.length) return [];
    const { runSteps } = c.t;
    return c.h.select({ runId: runSteps.runId, attempts: runSteps.attempts, origin: runSteps.origin }).from(runSteps).where(inArray(runSteps.runId, runIds));
  },
};
