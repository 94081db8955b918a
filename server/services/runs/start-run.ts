/** Starting a run by hand or through the API (optionally replaying an earlier event). */
import { and, eq } from "drizzle-orm";
import { events, runs } from "@/db/schema";
import { transaction } from "@/db/client";
import { envelope, type Envelope } from "@/integrations/core/define";
import { findTrigger } from "@/integrations/registry";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError, notFound } from "../../errors";
import { requireWorkspace } from "../access";
import { createRunInTx } from "../../runner/create-run";
import { getVersionGraph } from "../../runner/graph-cache";
import { notifyWork } from "../../runner/signal";
import { loadAutomationRow } from "../automations/save-automation";
import { toRun } from "./to-run";

export interface StartRunInput {
  workspaceId: string;
  automationId: string;
  payload?: unknown;
  nodeId?: string;
  idempotencyKey?: string;
  /** Replay: start again with the envelope of this earlier event. */
  eventId?: string;
}

export async function startRun(deps: AppDeps, actor: Actor, input: StartRunInput) {
  await requireWorkspace(deps.db, actor, input.workspaceId, "run.start");
  const a = loadAutomationRow(deps.db, input.workspaceId, input.automationId);
  const errors = (a.problems ?? []).filter((p) => p.severity !== "warning");
  if (errors.length) {
    throw new AppError("validation_failed", `This automation is a draft with ${errors.length} problem${errors.length === 1 ? "" : "s"} (${errors[0]!.message}); fix ${errors.length === 1 ? "it" : "them"} and save before running it.`, errors);
  }
  const graph = getVersionGraph(deps.db, a.id, a.version);
  const triggers = graph.graph.nodes.filter((n) => findTrigger(n.key));
  let node = input.nodeId ? triggers.find((n) => n.id === input.nodeId) : (triggers.find((n) => n.key === "core.manual") ?? triggers[0]);
  if (input.nodeId && !node) throw new AppError("validation_failed", `Node ${input.nodeId} is not a trigger of this automation`, [{ path: "nodeId", message: "Not a trigger node" }]);
  let env: Envelope;
  let eventId: string | undefined;
  if (input.eventId) {
    const ev = deps.db.select().from(events).where(and(eq(events.id, input.eventId), eq(events.workspaceId, input.workspaceId))).get();
    if (!ev) throw notFound("Event", input.eventId);
    env = ev.envelope;
    eventId = ev.id;
    node = (ev.nodeId ? triggers.find((n) => n.id === ev.nodeId) : undefined) ?? node;
  } else {
    if (!node) throw new AppError("unprocessable", "This automation has no trigger to start from");
    env = envelope(findTrigger(node.key)!.outputType, input.payload ?? {}, deps.now());
  }
  if (!node) throw new AppError("unprocessable", "This automation has no trigger to start from");
  const scope = `manual:${a.id}`;
  const result = transaction(deps.db, (tx) => {
    const created = createRunInTx(tx, {
      workspaceId: a.workspaceId, automationId: a.id, version: a.version, triggerNodeId: node!.id, graph, envelope: env,
      source: eventId ? "replay" : actor.kind === "apiKey" ? "api" : "manual", eventId,
      dedupeScope: scope, dedupeKey: input.idempotencyKey ?? null, at: deps.now(),
    });
    if (created) return { runId: created.runId, duplicate: false };
    const ev = tx.select({ id: events.id }).from(events).where(and(eq(events.dedupeScope, scope), eq(events.dedupeKey, input.idempotencyKey!))).get();
    const prior = ev ? tx.select({ id: runs.id }).from(runs).where(eq(runs.eventId, ev.id)).get() : undefined;
    if (!prior) throw new AppError("conflict", "This idempotency key was already used");
    return { runId: prior.id, duplicate: true };
  });
  notifyWork();
  const row = deps.db.select().from(runs).where(eq(runs.id, result.runId)).get()!;
  return { ...toRun(row, node.name), runId: row.id, duplicate: result.duplicate };
}
