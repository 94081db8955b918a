/**
 * Cancelling a run (queued/running/waiting → cancelled; in-flight steps are aborted) and retrying
 * a failed or cancelled run from its failed step: earlier succeeded steps keep their results, the
 * failed and cancelled steps are queued again (same step ids, attempts continue).
 */
import { and, eq, inArray } from "drizzle-orm";
import { runSteps, runs } from "@/db/schema";
import { transaction } from "@/db/client";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError, notFound } from "../../errors";
import { requireWorkspace } from "../access";
import { finishRun } from "../../runner/finalize-run";
import { queueStatements } from "../../runner/queue";
import { abortRunLocally, notifyWork } from "../../runner/signal";
import { loadRun } from "../../runner/step-store";
import { toRun } from "./to-run";

export async function cancelRun(deps: AppDeps, actor: Actor, workspaceId: string, runId: string) {
  await requireWorkspace(deps.db, actor, workspaceId, "run.cancel");
  transaction(deps.db, (tx) => {
    const run = loadRun(tx, runId);
    if (!run || run.workspaceId !== workspaceId) throw notFound("Run", runId);
    if (!["queued", "running", "waiting"].includes(run.status)) throw new AppError("conflict", `Run ${runId} is already ${run.status}.`);
    finishRun(tx, run, "cancelled", { message: `Cancelled by ${actor.label}`, code: "cancelled" }, deps.now());
  });
  abortRunLocally(runId);
  return toRun(deps.db.select().from(runs).where(eq(runs.id, runId)).get()!);
}

export async function retryRun(deps: AppDeps, actor: Actor, workspaceId: string, runId: string) {
  await requireWorkspace(deps.db, actor, workspaceId, "run.start");
  transaction(deps.db, (tx) => {
    const run = loadRun(tx, runId);
    if (!run || run.workspaceId !== workspaceId) throw notFound("Run", runId);
    if (run.status !== "failed" && run.status !== "cancelled") throw new AppError("conflict", `Run ${runId} is ${run.status}; only failed or cancelled runs can be retried.`);
    const redo = tx.select().from(runSteps).where(and(eq(runSteps.runId, runId), inArray(runSteps.status, ["failed", "cancelled"]))).all();
    if (!redo.length) throw new AppError("conflict", `Run ${runId} has no failed step to retry from.`);
    const now = deps.now();
    const q = queueStatements(tx);
    for (const s of redo) {
      q.insert.run(s.id, runId, s.id, run.automationId, JSON.stringify({ nodeId: s.nodeId, parentStepId: s.parentStepId }), "queued", now.getTime(), null, null, 0, now.getTime());
      tx.update(runSteps).set({ status: "queued", error: null, finishedAt: null }).where(eq(runSteps.id, s.id)).run();
    }
    tx.update(runs).set({ status: "queued", error: null, finishedAt: null, updatedAt: now.toISOString() }).where(eq(runs.id, runId)).run();
  });
  notifyWork();
  return toRun(deps.db.select().from(runs).where(eq(runs.id, runId)).get()!);
}
