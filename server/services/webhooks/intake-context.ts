/**
 * Resolves a hook token to what the ingress needs (intake, automation version, trigger node and
 * parsed config, connection). Two indexed lookups per delivery confirm the intake and automation
 * are still active (a disable takes effect at once, in every process); the parsed parts are
 * cached by (intake updatedAt, automation version).
 */
import { prepared } from "@/db/prepared";
import { openConfigSecrets } from "../automations/node-secrets";
import { withLegacyDefaults, type AnyTrigger, type ConnectionHandle } from "@/integrations/core/define";
import { findTrigger } from "@/integrations/registry";
import type { AppDeps } from "../../deps";
import type { GraphNode } from "../../contracts/graph";
import { getVersionGraph, type IndexedGraph } from "../../runner/graph-cache";
import { loadConnectionHandle } from "../connections/load-connection";

export interface IntakeHead {
  id: string;
  workspaceId: string;
  kind: "trigger" | "shared" | "webhook" | "tracker";
  automationId: string | null;
  nodeId: string | null;
  connectionId: string | null;
  lineId: string | null;
  status: string;
  updatedAt: string;
  config: string | null;
  secretEnc: string | null;
  name: string;
  /** The automation behind a `trigger` intake (same query). */
  automationVersion: number | null;
  automationEnabled: number | null;
  automationUpdatedAt: string | null;
  /** Changes when the node's connection changes (a rotated webhook secret must apply at once). */
  connectionUpdatedAt: string | null;
}

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

export function loadIntakeHead(deps: AppDeps, token: string): IntakeHead | undefined {
  // Separate primary-key lookups: measured 4x cheaper than one LEFT JOIN over the three tables.
  const head = prepared(
    deps.db,
    `select id, workspace_id as workspaceId, kind, automation_id as automationId, node_id as nodeId, connection_id as connectionId,
     line_id as lineId, status, updated_at as updatedAt, config, secret_enc as secretEnc, name from intakes where token = ?`,
  ).get(token) as IntakeHead | undefined;
  if (!head) return undefined;
  const a = head.automationId
    ? (prepared(deps.db, "select version, enabled, updated_at as u from automations where id = ?").get(head.automationId) as { version: number; enabled: number; u: string } | undefined)
    : undefined;
  head.automationVersion = a?.version ?? null;
  head.automationEnabled = a?.enabled ?? null;
  head.automationUpdatedAt = a?.u ?? null;
  head.connectionUpdatedAt = head.connectionId
    ? ((prepared(deps.db, "select updated_at as u from connections where id = ?").get(head.connectionId) as { u: string } | undefined)?.u ?? null)
    : null;
  return head;
}

async function buildTarget(deps: AppDeps, automationId: string, version: number, nodeId: string): Promise<TriggerTarget | undefined> {
  const graph = getVersionGraph(deps.db, automationId, version);
  const node = graph.byId.get(nodeId);
  const trigger = node && findTrigger(node.key);
  if (!node || !trigger) return undefined;
  const parsed = trigger.config.safeParse(withLegacyDefaults(trigger, openConfigSecrets(deps.box, node.config)));
  if (!parsed.success) return undefined;
  const connection = node.connectionId ? await loadConnectionHandle(deps, node.connectionId) : undefined;
  return { automationId, version, graph, node, trigger, config: parsed.data, connection };
}

/** The trigger node behind a `trigger` intake, or undefined when it is disabled/gone. */
export async function triggerTarget(deps: AppDeps, intake: IntakeHead): Promise<TriggerTarget | undefined> {
  if (!intake.automationId || !intake.nodeId) return undefined;
  if (!intake.automationEnabled || intake.automationVersion === null) return undefined;
  const a = { version: intake.automationVersion };
  const stamp = `${intake.updatedAt}|${a.version}|${intake.automationUpdatedAt}|${intake.connectionUpdatedAt}`;
  const hit = cache.get(intake.id);
  if (hit?.stamp === stamp) return hit.target;
  const target = await buildTarget(deps, intake.automationId, a.version, intake.nodeId);
  if (target) {
    if (cache.size > 5000) cache.clear();
    cache.set(intake.id, { stamp, target });
  }
  return target;
}

/** Every enabled trigger node using a connection's shared intake (same sharedKey). */
export async function sharedTargets(deps: AppDeps, intake: IntakeHead): Promise<TriggerTarget[]> {
  const sharedKey = (intake.config ? (JSON.parse(intake.config) as { sharedKey?: string }) : {}).sharedKey;
  const rows = prepared(deps.db, "select id, version from automations where workspace_id = ? and enabled = 1 and graph like ?")
    .all(intake.workspaceId, `%${intake.connectionId}%`) as Array<{ id: string; version: number }>;
  const out: TriggerTarget[] = [];
  for (const a of rows) {
    const graph = getVersionGraph(deps.db, a.id, a.version);
    for (const node of graph.graph.nodes) {
      const t = findTrigger(node.key);
      if (!t || t.delivery !== "shared-webhook" || node.connectionId !== intake.connectionId || (t.sharedKey ?? t.key) !== sharedKey) continue;
      const target = await buildTarget(deps, a.id, a.version, node.id);
      if (target) out.push(target);
    }
  }
  return out;
}
