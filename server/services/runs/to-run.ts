/** Run rows → the response shapes (RunSchema / RunDetailSchema). */
import type { RunRecord } from "@/db/types";
import type { Run } from "../../contracts/runs";

export type RunRowFull = RunRecord;

/** `triggerName`: the trigger node's name in the version that ran, when known. */
export function toRun(r: RunRowFull, triggerName?: string | null): Run {
  return {
    id: r.id,
    appId: r.automationId,
    automationId: r.automationId,
    version: r.version,
    status: r.status,
    trigger: { nodeId: r.triggerNodeId, eventId: r.eventId, ...(triggerName !== undefined ? { name: triggerName } : {}) },
    taskId: r.taskId ?? null,
    retryOf: r.retryOf ?? null,
    mode: r.mode,
    test: r.test ?? null,
    createdAt: r.createdAt,
    startedAt: r.startedAt ?? null,
    finishedAt: r.finishedAt ?? null,
    error: r.error ?? null,
  };
}
