/**
 * Trigger lifecycle on save / enable / disable / delete:
 * - intakes rows are written inside the save transaction (`syncIntakes`): one `trigger` intake per
 *   webhook or schedule trigger node (its URL is stable across saves), a connection-wide `shared`
 *   intake for `shared-webhook` triggers; intakes of removed nodes are deleted, of a disabled
 *   automation set `disabled`;
 * - upstream work (`setup`, `teardown`, `maintain`) runs AFTER the commit (no transaction is held
 *   across HTTP); a failed setup marks the intake `error` with the upstream's message.
 */
import { and, eq, inArray } from "drizzle-orm";
import { automations, intakes } from "@/db/schema";
import type { Db } from "@/db/client";
import type { AnyTrigger, IntakeInfo, TriggerSetupContext } from "@/integrations/core/define";
import { createHttpClient } from "@/integrations/core/http";
import { findTrigger } from "@/integrations/registry";
import type { AppDeps } from "../../deps";
import type { Graph, GraphNode } from "../../contracts/graph";
import { newId, newToken } from "../../ids";
import { loadConnectionHandle } from "../connections/load-connection";
import { sharedRegistrations } from "./registrations";

export type IntakeRow = typeof intakes.$inferSelect;

export function hookUrl(deps: Pick<AppDeps, "publicUrl">, token: string): string {
  return `${deps.publicUrl}/hooks/${token}`;
}

function triggerNodes(graph: Graph): Array<{ node: GraphNode; trigger: AnyTrigger }> {
  return graph.nodes.flatMap((node) => {
    const trigger = findTrigger(node.key);
    return trigger ? [{ node, trigger }] : [];
  });
}

/** Writes intake rows for the automation's trigger nodes (inside the save transaction). */
export function syncIntakes(deps: AppDeps, tx: Db, a: { id: string; workspaceId: string; enabled: boolean; graph: Graph }): void {
  const now = deps.now();
  const at = now.toISOString();
  const existing = tx.select().from(intakes).where(and(eq(intakes.automationId, a.id), eq(intakes.kind, "trigger"))).all();
  const keep = new Set<string>();
  for (const { node, trigger } of triggerNodes(a.graph)) {
    if (trigger.delivery === "shared-webhook") {
      if (node.connectionId) ensureSharedIntake(tx, a.workspaceId, node.connectionId, trigger.sharedKey ?? trigger.key, at);
      continue;
    }
    if (trigger.delivery !== "webhook" && trigger.delivery !== "schedule") continue;
    let config: Record<string, unknown> | null = null;
    if (trigger.delivery === "schedule") {
      const parsed = trigger.config.safeParse(node.config);
      const next = parsed.success && trigger.nextFireAt ? trigger.nextFireAt(parsed.data, now) : null;
      config = { schedule: true, nextFireAt: next ? next.toISOString() : "9999-12-31T00:00:00.000Z" };
    }
    const row = existing.find((r) => r.nodeId === node.id);
    const status = a.enabled ? "active" : "disabled";
    if (row) {
      keep.add(row.id);
      tx.update(intakes).set({ status, statusMessage: null, connectionId: node.connectionId ?? null, config: config ?? row.config, updatedAt: at }).where(eq(intakes.id, row.id)).run();
    } else {
      tx.insert(intakes).values({
        id: newId("int"), workspaceId: a.workspaceId, kind: "trigger", name: node.name, token: newToken(), automationId: a.id, nodeId: node.id,
        connectionId: node.connectionId ?? null, config, status, createdAt: at, updatedAt: at,
      }).run();
    }
  }
  const removed = existing.filter((r) => !keep.has(r.id)).map((r) => r.id);
  if (removed.length) tx.delete(intakes).where(inArray(intakes.id, removed)).run();
}

function ensureSharedIntake(tx: Db, workspaceId: string, connectionId: string, sharedKey: string, at: string): IntakeRow {
  const rows = tx.select().from(intakes).where(and(eq(intakes.connectionId, connectionId), eq(intakes.kind, "shared"))).all();
  const found = rows.find((r) => (r.config as { sharedKey?: string } | null)?.sharedKey === sharedKey);
  if (found) return found;
  const row = { id: newId("int"), workspaceId, kind: "shared" as const, name: sharedKey, key: null, source: null, token: newToken(), automationId: null, nodeId: null, connectionId, lineId: null, secretEnc: null, config: { sharedKey }, status: "active" as const, statusMessage: null, lastEventAt: null, eventCount: 0, createdAt: at, updatedAt: at };
  tx.insert(intakes).values(row).run();
  return row;
}

function intakeInfo(deps: AppDeps, row: IntakeRow | undefined): IntakeInfo {
  return row ? { id: row.id, url: hookUrl(deps, row.token), token: row.token } : { id: "", url: "", token: "" };
}

async function setupContext(deps: AppDeps, automationId: string, workspaceId: string, node: GraphNode, trigger: AnyTrigger): Promise<TriggerSetupContext> {
  const own = deps.db.select().from(intakes).where(and(eq(intakes.automationId, automationId), eq(intakes.nodeId, node.id))).get();
  const shared = node.connectionId
    ? deps.db.select().from(intakes).where(and(eq(intakes.connectionId, node.connectionId), eq(intakes.kind, "shared"))).all()
        .find((r) => (r.config as { sharedKey?: string } | null)?.sharedKey === (trigger.sharedKey ?? trigger.key))
    : undefined;
  const connection = node.connectionId ? await loadConnectionHandle(deps, node.connectionId) : undefined;
  void workspaceId;
  return {
    config: trigger.config.parse(node.config),
    connection,
    http: createHttpClient(),
    log: deps.log,
    intake: intakeInfo(deps, own ?? shared),
    sharedIntake: shared ? intakeInfo(deps, shared) : undefined,
    registrations: sharedRegistrations(deps.db, node.connectionId ?? "", { automationId, nodeId: node.id }),
    automationId,
    nodeId: node.id,
  };
}

function markIntake(deps: AppDeps, automationId: string, nodeId: string, status: "active" | "error", message: string | null) {
  deps.db.update(intakes).set({ status, statusMessage: message, updatedAt: new Date().toISOString() }).where(and(eq(intakes.automationId, automationId), eq(intakes.nodeId, nodeId))).run();
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
  const prev = before?.enabled ? triggerNodes(before.graph) : [];
  const next = after?.enabled ? triggerNodes(after.graph) : [];
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
      markIntake(deps, a.id, node.id, "active", null);
    } catch (e) {
      const message = (e as Error).message;
      problems.push({ nodeId: node.id, message });
      markIntake(deps, a.id, node.id, "error", message);
    }
  }
  return problems;
}

/** Periodic upkeep: `maintain` of every trigger node of every enabled automation that has one. */
export async function maintainTriggers(deps: AppDeps): Promise<void> {
  const rows = deps.db.select({ id: automations.id, ws: automations.workspaceId, graph: automations.graph }).from(automations).where(eq(automations.enabled, true)).all();
  for (const a of rows) {
    for (const node of a.graph.nodes) {
      const trigger = findTrigger(node.key);
      if (!trigger?.maintain) continue;
      try {
        await trigger.maintain(await setupContext(deps, a.id, a.ws, node as GraphNode, trigger));
      } catch (e) {
        deps.log.warn("trigger maintain failed", { automationId: a.id, nodeId: node.id, error: (e as Error).message });
      }
    }
  }
}
