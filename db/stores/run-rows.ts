/** Small pieces shared by the runs store and the derived-runs store (no imports between those two at run time). */
import { sortableId } from "../sortable-id";
import type * as s from "../schema";
import type { JobRow, RunRecord } from "../types";

/** Runs a retry may start from. */
export const RETRYABLE: Array<RunRecord["status"]> = ["failed", "cancelled"];

/** The job row queueing a step (the embedded queue's table; in scale-out mode the run's pending steps). */
export function newStepJob(j: { id?: string; runId: string; automationId: string; nodeId: string; parentStepId: string | null; atMs: number }): JobRow {
  const id = j.id ?? sortableId("stp");
  return {
    id,
    kind: "step",
    runId: j.runId,
    stepId: id,
    automationId: j.automationId,
    payload: { nodeId: j.nodeId, parentStepId: j.parentStepId },
    status: "queued",
    availableAt: j.atMs,
    leaseOwner: null,
    leaseToken: null,
    leaseUntil: null,
    attempts: 0,
    createdAt: j.atMs,
  };
}

/** A new run's row: queued, or succeeded at once when it has no first step (`finished`). */
export function newRunRow(
  r: {
    workspaceId: string;
    automationId: string;
    version: number;
    triggerNodeId: string;
    taskId?: string | null;
    taskStep?: number | null;
    retryOf?: string | null;
  },
  ids: { runId: string; eventId: string },
  iso: string,
  finished: boolean,
): typeof s.runs.$inferInsert {
  return {
    id: ids.runId,
    workspaceId: r.workspaceId,
    automationId: r.automationId,
    version: r.version,
    status: finished ? "succeeded" : "queued",
    triggerNodeId: r.triggerNodeId,
    eventId: ids.eventId,
    taskId: r.taskId ?? null,
    taskStep: r.taskStep ?? null,
    retryOf: r.retryOf ?? null,
    error: null,
    followupAt: finished && r.taskId ? iso : null,
    createdAt: iso,
    startedAt: finished ? iso : null,
    finishedAt: finished ? iso : null,
    updatedAt: iso,
  };
}
