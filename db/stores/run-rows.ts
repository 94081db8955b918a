/** Small pieces shared by the runs store and the derived-runs store (no imports between those two at run time). */
import { sortableId } from "../sortable-id";
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
