/** Starting a run by hand or through the API (optionally replaying an earlier event). */
import { envelope, type Envelope } from "@/integrations/core/define";
import { findTrigger } from "@/integrations/registry";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError } from "../../errors";
import { getVersionGraph } from "../../graphs";
import { countCreatedRun } from "../../usage-counters";
import { requireWorkspace } from "../access";
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
  const { store } = deps;
  await requireWorkspace(store, actor, input.workspaceId, "run.start");
  const a = await loadAutomationRow(store, input.workspaceId, input.automationId);
  const errors = (a.problems ?? []).filter((p) => p.severity !== "warning");
  if (errors.length) {
    throw new AppError(
      "validation_failed",
      `This automation is a draft with ${errors.length} problem${errors.length === 1 ? "" : "s"} (${errors[0]!.message}); fix ${errors.length === 1 ? "it" : "them"} and save before running it.`,
      errors,
    );
  }
  const graph = await getVersionGraph(store, a.id, a.version);
  const triggers = graph.graph.nodes.filter((n) => findTrigger(n.key));
  let node = input.nodeId ? triggers.find((n) => n.id === input.nodeId) : (triggers.find((n) => n.key === "core.manual") ?? triggers[0]);
  if (input.nodeId && !node)
    throw new AppError("validation_failed", `Node ${input.nodeId} is not a trigger of this automation`, [{ path: "nodeId", message: "Not a trigger node" }]);
  let env: Envelope;
  let eventId: string | undefined;
  if (input.eventId) {
    const ev = await store.runs.event(input.eventId, input.workspaceId);
    // A body field: a 422 naming it, not a 404 (which reads as "no such automation").
    if (!ev)
      throw new AppError("validation_failed", `Event ${input.eventId} does not exist in this workspace; pass the eventId of one of its runs' triggers.`, [
        { path: "eventId", message: "Unknown event" },
      ]);
    env = ev.envelope;
    eventId = ev.id;
    node = (ev.nodeId ? triggers.find((n) => n.id === ev.nodeId) : undefined) ?? node;
  } else {
    if (!node) throw new AppError("unprocessable", "This automation has no trigger to start from");
    env = envelope(findTrigger(node.key)!.outputType, input.payload ?? {}, deps.now());
  }
  if (!node) throw new AppError("unprocessable", "This automation has no trigger to start from");
  const scope = `manual:${a.id}`;
  const at = deps.now();
  const created = await store.runs.create({
    workspaceId: a.workspaceId,
    automationId: a.id,
    version: a.version,
    triggerNodeId: node.id,
    firstNodes: graph.children.get(node.id) ?? [],
    envelope: env,
    source: eventId ? "replay" : actor.kind === "apiKey" ? "api" : "manual",
    eventId,
    dedupeScope: scope,
    dedupeKey: input.idempotencyKey ?? null,
    at,
  });
  let runId: string;
  let duplicate = false;
  if (created) {
    countCreatedRun(a.workspaceId, created, { newEvent: !eventId, at });
    deps.queue.publish([created.runId]);
    runId = created.runId;
  } else {
    const prior = await store.runs.runOfDedupe(scope, input.idempotencyKey!);
    if (!prior) throw new AppError("conflict", "This idempotency key was already used");
    runId = prior;
    duplicate = true;
  }
  const row = (await store.runs.get(runId))!;
  return { ...toRun(row, node.name), runId: row.id, duplicate };
}
