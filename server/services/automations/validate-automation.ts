/**
 * Save-time validation of the automation document: every problem at once, each with its node and
 * field. Expression values (`{{ }}`) are only syntax-checked here; their results are validated at
 * run time, after resolution.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { z } from "zod";
import { automations, connections } from "@/db/schema";
import { checkTemplate, hasExpression } from "@/integrations/core/expressions";
import { findUnit } from "@/integrations/registry";
import type { AppDeps } from "../../deps";
import { AutomationDocumentSchema, type DocumentProblem } from "../../contracts/automations";
import type { Graph } from "../../contracts/graph";

function valueAt(root: unknown, path: PropertyKey[]): unknown[] {
  const seen: unknown[] = [];
  let cur = root;
  for (const k of path) {
    seen.push(cur);
    cur = cur && typeof cur === "object" ? (cur as Record<PropertyKey, unknown>)[k] : undefined;
  }
  seen.push(cur);
  return seen;
}

function zodProblems(error: z.ZodError, prefix: string, nodeId?: string, root?: unknown): DocumentProblem[] {
  return error.issues
    .filter((i) => root === undefined || !valueAt(root, i.path).some(hasExpression))
    .map((i) => ({ path: [prefix, ...i.path.map(String)].filter(Boolean).join("."), message: i.message, ...(nodeId ? { nodeId } : {}) }));
}

function expressionProblems(value: unknown, path: string, nodeId: string, out: DocumentProblem[]): void {
  if (hasExpression(value)) {
    const reason = checkTemplate(value);
    if (reason) out.push({ path, nodeId, message: `Expression: ${reason}` });
  } else if (Array.isArray(value)) value.forEach((v, i) => expressionProblems(v, `${path}.${i}`, nodeId, out));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) expressionProblems(v, `${path}.${k}`, nodeId, out);
}

/** Graph structure: unknown edge ends, edges into triggers, cycles, components unreachable from a trigger. */
export function graphProblems(graph: Graph, isTrigger: (key: string) => boolean): DocumentProblem[] {
  const out: DocumentProblem[] = [];
  const ids = new Map(graph.nodes.map((n, i) => [n.id, { n, i }]));
  const adj = new Map<string, string[]>();
  graph.edges.forEach((e, i) => {
    const bad = [e.from, e.to].filter((id) => !ids.has(id));
    for (const id of bad) out.push({ path: `graph.edges.${i}`, message: `Edge refers to unknown node "${id}"` });
    if (bad.length) return;
    if (isTrigger(ids.get(e.to)!.n.key)) out.push({ path: `graph.edges.${i}`, nodeId: e.to, message: "A trigger cannot have incoming edges" });
    adj.set(e.from, [...(adj.get(e.from) ?? []), e.to]);
  });
  // cycles (iterative DFS with colours)
  const colour = new Map<string, 0 | 1 | 2>();
  const inCycle = new Set<string>();
  for (const start of ids.keys()) {
    if (colour.get(start)) continue;
    const stack: Array<{ id: string; next: number }> = [{ id: start, next: 0 }];
    colour.set(start, 1);
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const kids = adj.get(top.id) ?? [];
      if (top.next < kids.length) {
        const k = kids[top.next++]!;
        if (colour.get(k) === 1) inCycle.add(k);
        else if (!colour.get(k)) {
          colour.set(k, 1);
          stack.push({ id: k, next: 0 });
        }
      } else {
        colour.set(top.id, 2);
        stack.pop();
      }
    }
  }
  for (const id of inCycle) out.push({ path: `graph.nodes.${ids.get(id)!.i}`, nodeId: id, message: "This node is part of a cycle; automations must be acyclic" });
  // reachability from triggers
  const reached = new Set<string>();
  const queue = graph.nodes.filter((n) => isTrigger(n.key)).map((n) => n.id);
  while (queue.length) {
    const id = queue.shift()!;
    if (reached.has(id)) continue;
    reached.add(id);
    queue.push(...(adj.get(id) ?? []));
  }
  graph.nodes.forEach((n, i) => {
    if (!reached.has(n.id) && findUnit(n.key)?.unit.kind === "component") {
      out.push({ path: `graph.nodes.${i}`, nodeId: n.id, message: `"${n.name}" has no path from a trigger` });
    }
  });
  return out;
}

/** What validation needs to know about the workspace; the database in the services, the files offline (`conveyor validate`). */
export interface DocumentLookup {
  /** The connections among `ids` that exist; `integration: null` when it exists but its integration is unknown (offline). */
  connections(ids: string[]): Array<{ id: string; integration: string | null; config: unknown; state: unknown }>;
  automationExists(id: string): boolean;
}

export function workspaceLookup(deps: AppDeps, workspaceId: string): DocumentLookup {
  return {
    connections: (ids) =>
      ids.length
        ? deps.db.select({ id: connections.id, integration: connections.integration, config: connections.config, state: connections.state }).from(connections).where(and(eq(connections.workspaceId, workspaceId), inArray(connections.id, ids))).all()
        : [],
    automationExists: (id) => !!deps.db.select({ id: automations.id }).from(automations).where(and(eq(automations.id, id), eq(automations.workspaceId, workspaceId))).get(),
  };
}

export async function validateAutomationDocument(deps: AppDeps, workspaceId: string, doc: unknown, selfId?: string): Promise<DocumentProblem[]> {
  return validateDocument(doc, workspaceLookup(deps, workspaceId), selfId);
}

/** The whole check, pure apart from `lookup`: every problem at once, each with its path and node. */
export function validateDocument(doc: unknown, lookup: DocumentLookup, selfId?: string): DocumentProblem[] {
  const parsed = AutomationDocumentSchema.safeParse(doc);
  if (!parsed.success) return zodProblems(parsed.error, "");
  const { graph } = parsed.data;
  const problems: DocumentProblem[] = [];
  const seenIds = new Set<string>();
  const seenNames = new Map<string, string>();
  const connIds = [...new Set(graph.nodes.map((n) => n.connectionId).filter((x): x is string => !!x))];
  const connById = new Map(lookup.connections(connIds).map((c) => [c.id, c]));

  graph.nodes.forEach((node, i) => {
    const at = `graph.nodes.${i}`;
    if (seenIds.has(node.id)) problems.push({ path: `${at}.id`, nodeId: node.id, message: `Duplicate node id "${node.id}"` });
    seenIds.add(node.id);
    if (seenNames.has(node.name)) problems.push({ path: `${at}.name`, nodeId: node.id, message: `Another node is already named "${node.name}"` });
    seenNames.set(node.name, node.id);
    const hit = findUnit(node.key);
    if (!hit) {
      problems.push({ path: `${at}.key`, nodeId: node.id, message: `Unknown trigger or component "${node.key}"` });
      return;
    }
    const { unit, integration } = hit;
    const cfg = unit.config.safeParse(node.config);
    if (!cfg.success) problems.push(...zodProblems(cfg.error, `${at}.config`, node.id, node.config));
    expressionProblems(node.config, `${at}.config`, node.id, problems);
    if (unit.needsConnection !== false) {
      if (!node.connectionId) problems.push({ path: `${at}.connectionId`, nodeId: node.id, message: `Choose a ${integration.title} connection` });
      else {
        const c = connById.get(node.connectionId);
        if (!c) problems.push({ path: `${at}.connectionId`, nodeId: node.id, message: `Connection ${node.connectionId} does not exist in this workspace` });
        else if (c.integration !== null && c.integration !== integration.key) problems.push({ path: `${at}.connectionId`, nodeId: node.id, message: `Connection ${node.connectionId} is a ${c.integration} connection, not ${integration.key}` });
      }
    }
    if (cfg.success && unit.validate) {
      try {
        // Non-secret settings and state only (e.g. the tracker's enableOpsFeatures flag and synced cloud id).
        const c = node.connectionId ? connById.get(node.connectionId) : undefined;
        const connection = c && c.integration === integration.key ? { id: c.id, integration: c.integration, config: (c.config ?? {}) as Record<string, unknown>, state: (c.state ?? {}) as Record<string, unknown> } : undefined;
        for (const p of unit.validate(cfg.data, { connection })) problems.push({ path: `${at}.config${p.path ? "." + p.path : ""}`, nodeId: node.id, message: p.message });
      } catch (e) {
        problems.push({ path: `${at}.config`, nodeId: node.id, message: (e as Error).message });
      }
    }
  });
  problems.push(...graphProblems(graph, (key) => findUnit(key)?.unit.kind === "trigger"));
  const handler = parsed.data.errorHandlerId;
  if (handler) {
    if (!lookup.automationExists(handler)) problems.push({ path: "errorHandlerId", message: `Automation ${handler} does not exist in this workspace` });
    else if (handler === selfId) problems.push({ path: "errorHandlerId", message: "An automation cannot be its own error handler" });
  }
  return problems;
}
