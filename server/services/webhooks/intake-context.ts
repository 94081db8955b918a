/**
 * Resolves a hook token to what the ingress needs (intake, automation version, trigger node and
 * parsed config, connection). The intake head is read per delivery (SQLite) or served from the
 * PostgreSQL engine's cache and re-checked by the ingest statement itself (db/pg/ingest.ts), so a
 * disable, a new version or a rotated secret takes effect at once, in every process; the parsed
 * parts are cached by (intake updatedAt, automation version and updatedAt, connection updatedAt).
 */
import type { IntakeHead } from "@/db/engine";
import { openNodeSecrets } from "../automations/node-secrets";
import { withLegacyDefaults, type AnyTrigger, type ConnectionHandle } from "@/integrations/core/define";
import { findTrigger } from "@/integrations/registry";
import type { AppDeps } from "../../deps";
import type { GraphNode } from "../../contracts/graph";
import { getVersionGraph, type IndexedGraph } from "../../graphs";
import { loadConnectionHandle } from "../connections/load-connection";

export type { IntakeHead };

export interface TriggerTarget {
  automationId: string;
  version: number;
  graph: IndexedGraph;
  node: GraphNode;
  trigger: AnyTrigger;
  config: unknown;
  connection?: ConnectionHandle;
}

const cache = new Map<string, { stamp: string; target: TriggerTarget }>();

export function loadIntakeHead(deps: AppDeps, token: string, opts?: { fresh?: boolean }): Promise<IntakeHead | undefined> {
  return deps.store.engine.intakeHead(token, opts);
}

async function buildTarget(deps: AppDeps, workspaceId: string, automationId: string, version: number, nodeId: string): Promise<TriggerTarget | undefined> {
  const graph = await getVersionGraph(deps.store, automationId, version);
  const node = graph.byId.get(nodeId);
  const trigger = node && findTrigger(node.key);
  if (!node || !trigger) return undefined;
  const parsed = trigger.config.safeParse(withLegacyDefaults(trigger, openNodeSecrets(deps.box, node.key, node.config as Record<string, unknown>)));
  if (!parsed.success) return undefined;
  const connection = node.connectionId ? await loadConnectionHandle(deps, node.connectionId, { workspaceId }) : undefined;
  return { automationId, version, graph, node, trigger, config: parsed.data, connection };
}

/** The trigger node behind a `trigger` intake, or undefined when it is disabled/gone. */
export async function triggerTarget(deps: AppDeps, intake: IntakeHead): Promise<TriggerTarget | undefined> {
  if (!intake.automationId || !intake.nodeId) return undefined;
  if (!intake.automationEnabled || intake.automationVersion === null) return undefined;
  const version = intake.automationVersion;
  const stamp = `${intake.updatedAt}|${version}|${intake.automationUpdatedAt}|${intake.connectionUpdatedAt}`;
  const hit = cache.get(intake.id);
  if (hit?.stamp === stamp) return hit.target;
  const target = await buildTarget(deps, intake.workspaceId, intake.automationId, version, intake.nodeId);
  if (target) {
    if (cache.size > 5000) cache.clear();
    cache.set(intake.id, { stamp, target });
  }
  return target;
}

/** Every enabled trigger node using a connection's shared intake (same sharedKey). */
export async function sharedTargets(deps: AppDeps, intake: IntakeHead): Promise<TriggerTarget[]> {
  const sharedKey = (intake.config as { sharedKey?: string } | null)?.sharedKey;
  if (!intake.connectionId) return [];
  const out: TriggerTarget[] = [];
  for (const a of await deps.store.engine.automationsUsingConnection(intake.workspaceId, intake.connectionId)) {
    const graph = await getVersionGraph(deps.store, a.id, a.version);
    for (const node of graph.graph.nodes) {
      const t = findTrigger(node.key);
      if (!t || t.delivery !== "shared-webhook" || node.connectionId !== intake.connectionId || (t.sharedKey ?? t.key) !== sharedKey) continue;
      const target = await buildTarget(deps, intake.workspaceId, a.id, a.version, node.id);
      if (target) out.push(target);
    }
  }
  return out;
}
