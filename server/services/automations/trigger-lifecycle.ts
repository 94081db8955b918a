/**
 * Trigger lifecycle on save / enable / disable / delete:
 * - intakes rows are written inside the save transaction (`syncIntakes`): one `trigger` intake per
 *   webhook or schedule trigger node (its URL is stable across saves), a connection-wide `shared`
 *   intake for `shared-webhook` triggers; intakes of removed nodes are deleted, of a disabled
 *   automation set `disabled`;
 * - upstream work (`setup`, `teardown`, `maintain`) runs AFTER the commit (no transaction is held
 *   across HTTP); a failed setup marks the intake `error` with the upstream's message.
 */
import type { Store } from "@/db/store";
import type { IntakeRow } from "@/db/types";
import { withLegacyDefaults, type AnyTrigger, type IntakeInfo, type TriggerSetupContext } from "@/integrations/core/define";
import { createHttpClient } from "@/integrations/core/http";
import { findTrigger } from "@/integrations/registry";
import type { AppDeps } from "../../deps";
import type { Graph, GraphNode } from "../../contracts/graph";
import { newId, newToken } from "../../ids";
import { loadConnectionHandle } from "../connections/load-connection";
import { sharedRegistrations } from "./registrations";

export type { IntakeRow };

export function hookUrl(deps: Pick<AppDeps, "publicUrl">, token: string): string {
  return `${deps.publicUrl}/hooks/${token}`;
}

/** Trigger nodes of a graph; `live` leaves out disabled nodes (they keep their intake row, set `disabled`). */
function triggerNodes(graph: Graph, live = false): Array<{ node: GraphNode; trigger: AnyTrigger }> {
  return graph.nodes.flatMap((node) => {
    if (live && node.disabled) return [];
    const trigger = findTrigger(node.key);
    return trigger ? [{ node, trigger }] : [];
  });
}

/** Writes intake rows for the automation's trigger nodes (inside the save transaction). */
export async function syncIntakes(deps: AppDeps, s: Store, a: { id: string; workspaceId: string; enabled: boolean; graph: Graph }): Promise<void> {
  const now = deps.now();
  const at = now.toISOString();
  const existing = await s.intakes.triggersOf([a.id]);
  const keep = new Set<string>();
  for (const { node, trigger } of triggerNodes(a.graph)) {
    if (trigger.delivery === "shared-webhook") {
      if (node.connectionId) await ensureSharedIntake(s, a.workspaceId, node.connectionId, trigger.sharedKey ?? trigger.key, at);
      continue;
    }
    if (trigger.delivery !== "webhook" && trigger.delivery !== "schedule") continue;
    let config: Record<string, unknown> | null = null;
    if (trigger.delivery === "schedule") {
      const parsed = trigger.config.safeParse(withLegacyDefaults(trigger, node.config));
      let next: Date | null = null;
      try {
        next = parsed.success && trigger.nextFireAt ? trigger.nextFireAt(parsed.data, now) : null;
      } catch {
        // A draft may be saved with an invalid schedule (e.g. a bad cron expression): it never fires.
      }
      config = { schedule: true, nextFireAt: next ? next.toISOString() : "9999-12-31T00:00:00.000Z" };
    }
    const row = existing.find((r) => r.nodeId === node.id);
    // A disabled node keeps its intake (and so its URL) but the intake answers 404 until it is enabled again.
    const status = a.enabled && !node.disabled ? "active" : "disabled";
    if (row) {
      keep.add(row.id);
      await s.intakes.update(row.id, { status, statusMessage: null, connectionId: node.connectionId ?? null, config: config ?? row.config, updatedAt: at });
    } else {
      await s.intakes.insert({
        id: newId("int"),
        workspaceId: a.workspaceId,
        kind: "trigger",
        name: node.name,
        token: newToken(),
        automationId: a.id,
        nodeId: node.id,
        connectionId: node.connectionId ?? null,
        lineId: null,
        secretEnc: null,
        config,
        status,
        statusMessage: null,
        lastEventAt: null,
        eventCount: 0,
        refusedCount: 0,
        lastRefused: null,
        createdAt: at,
        updatedAt: at,
      });
    }
  }
  const removed = existing.filter((r) => !keep.has(r.id)).map((r) => r.id);
  await s.intakes.delete(removed);
}

function ensureSharedIntake(s: Store, workspaceId: string, connectionId: string, sharedKey: string, at: string): Promise<IntakeRow> {
  const row = {
    id: newId("int"),
    workspaceId,
    kind: "shared" as const,
    name: sharedKey,
    key: null,
    source: null,
    token: newToken(),
    automationId: null,
    nodeId: null,
    connectionId,
    lineId: null,
    secretEnc: null,
    config: { sharedKey },
    status: "active" as const,
    statusMessage: null,
    lastEventAt: null,
    eventCount: 0,
    refusedCount: 0,
    lastRefused: null,
    createdAt: at,
    updatedAt: at,
  };
  return s.intakes.ensureShared(row);
}

function intakeInfo(deps: AppDeps, row: IntakeRow | undefined): IntakeInfo {
  return row ? { id: row.id, url: hookUrl(deps, row.token), token: row.token } : { id: "", url: "", token: "" };
}

async function setupContext(deps: AppDeps, automationId: string, workspaceId: string, node: GraphNode, trigger: AnyTrigger): Promise<TriggerSetupContext> {
  const own = await deps.store.intakes.ofNode(automationId, node.id);
  const shared = node.connectionId
    ? (await deps.store.intakes.sharedOf([node.connectionId])).find(
        (r) => (r.config as { sharedKey?: string } | null)?.sharedKey === (trigger.sharedKey ?? trigger.key),
      )
    : undefined;
  const connection = node.connectionId ? await loadConnectionHandle(deps, node.connectionId) : undefined;
  void workspaceId;
  return {
    config: trigger.config.parse(withLegacyDefaults(trigger, node.config)),
    connection,
    http: createHttpClient(),
    log: deps.log,
    intake: intakeInfo(deps, own ?? shared),
    sharedIntake: shared ? intakeInfo(deps, shared) : undefined,
    registrations: sharedRegistrations(deps.store, node.connectionId ?? "", { automationId, nodeId: node.id }),
    automationId,
    nodeId: node.id,
  };
}

function markIntake(deps: AppDeps, automationId: string, nodeId: string, status: "active" | "error", message: string | null) {
  return deps.store.intakes.setNodeStatus(automationId, nodeId, { status, statusMessage: message, updatedAt: new Date().toISOString() });
}

/**
 * After a committed save: `setup` for trigger nodes of an enabled automation (new or changed),
 * `teardown` for nodes removed or when disabled/deleted. Returns problems per node (not thrown).
 */
export async function applyTriggerLifecycle(
  deps: AppDeps,
  a: { id: string; workspaceId: string },
  before: { enabled: boolean; graph: Graph } | null,
  after: { enabled: boolean; graph: Graph } | null,
): Promise<Array<{ nodeId: string; message: string }>> {
  const problems: Array<{ nodeId: string; message: string }> = [];
  const prev = before?.enabled ? triggerNodes(before.graph, true) : [];
  const next = after?.enabled ? triggerNodes(after.graph, true) : [];
  const same = (x: GraphNode, y: GraphNode) => x.key === y.key && x.connectionId === y.connectionId && JSON.stringify(x.config) === JSON.stringify(y.config);
  for (const { node, trigger } of prev) {
    const still = next.find((n) => n.node.id === node.id);
    if (still && same(still.node, node)) continue;
    if (!trigger.teardown) continue;
    try {
      await trigger.teardown(await setupContext(deps, a.id, a.workspaceId, node, trigger));
    } catch (e) {
      deps.log.warn("trigger teardown failed", { automationId: a.id, nodeId: node.id, error: (e as Error).message });
    }
  }
  for (const { node, trigger } of next) {
    const was = prev.find((n) => n.node.id === node.id);
    if ((was && same(was.node, node)) || !trigger.setup) continue;
    try {
      await trigger.setup(await setupContext(deps, a.id, a.workspaceId, node, trigger));
      await markIntake(deps, a.id, node.id, "active", null);
    } catch (e) {
      const message = (e as Error).message;
      problems.push({ nodeId: node.id, message });
      await markIntake(deps, a.id, node.id, "error", message);
    }
  }
  return problems;
}

/** Periodic upkeep: `maintain` of every trigger node of every enabled automation that has one. */
export async function maintainTriggers(deps: AppDeps): Promise<void> {
  const rows = await deps.store.automations.enabledGraphs();
  for (const a of rows) {
    for (const node of a.graph.nodes) {
      if (node.disabled) continue;
      const trigger = findTrigger(node.key);
      if (!trigger?.maintain) continue;
      try {
        await trigger.maintain(await setupContext(deps, a.id, a.workspaceId, node as GraphNode, trigger));
      } catch (e) {
        deps.log.warn("trigger maintain failed", { automationId: a.id, nodeId: node.id, error: (e as Error).message });
      }
    }
  }
}
