/**
 * Save-time validation of the automation document: every problem at once, each with its node and
 * field. Expression values (`{{ }}`) are syntax-checked and their `$steps` / `$trigger` references
 * checked against the graph and the producers' output schemas; their results are validated at run
 * time, after resolution.
 *
 * Pure: document + catalog + connection facts in, problems out, no database; so the editor's tRPC
 * door, REST and an offline CLI give the same answers (`validate-in-workspace.ts` loads a workspace's
 * facts for the doors, and runs the units' upstream `check`s (check-upstream.ts) on the nodes listed
 * in `facts.checks`).
 */
import type { z } from "zod";
import { toJsonSchema } from "@/integrations/core/catalog";
import { checkTemplate, hasExpression } from "@/integrations/core/expressions";
import { checkReferences, type JsonSchemaLike, type RefUnit } from "@/integrations/core/references";
import { findUnit } from "@/integrations/registry";
import { AutomationDocumentSchema, type DocumentProblem } from "../../contracts/automations";
import type { Graph } from "../../contracts/graph";
import type { CheckTarget } from "./check-upstream";
import { issueMessage } from "../../errors";
import { strippedKeys } from "../stripped-keys";

type Problem = DocumentProblem;
const err = (p: Omit<Problem, "severity">): Problem => ({ ...p, severity: "error" });

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

function zodProblems(error: z.ZodError, prefix: string, nodeId?: string, root?: unknown): Problem[] {
  return error.issues
    .filter((i) => root === undefined || !valueAt(root, i.path).some(hasExpression))
    .map((i) => err({ path: [prefix, ...i.path.map(String)].filter(Boolean).join("."), message: issueMessage(i), ...(nodeId ? { nodeId } : {}) }));
}

function expressionProblems(value: unknown, path: string, nodeId: string, out: Problem[]): void {
  if (hasExpression(value)) {
    const reason = checkTemplate(value);
    if (reason) out.push(err({ path, nodeId, message: `Expression: ${reason}` }));
  } else if (Array.isArray(value)) value.forEach((v, i) => expressionProblems(v, `${path}.${i}`, nodeId, out));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) expressionProblems(v, `${path}.${k}`, nodeId, out);
}

/** Graph structure: unknown edge ends, edges into triggers, cycles, components unreachable from a trigger. */
export function graphProblems(
  graph: Graph,
  isTrigger: (key: string) => boolean,
  isComponent: (key: string) => boolean = (key) => findUnit(key)?.unit.kind === "component",
): Problem[] {
  const out: Problem[] = [];
  const ids = new Map(graph.nodes.map((n, i) => [n.id, { n, i }]));
  const adj = new Map<string, string[]>();
  graph.edges.forEach((e, i) => {
    const bad = [e.from, e.to].filter((id) => !ids.has(id));
    for (const id of bad) out.push(err({ path: `graph.edges.${i}`, message: `Edge refers to unknown node "${id}"` }));
    if (bad.length) return;
    if (isTrigger(ids.get(e.to)!.n.key)) out.push(err({ path: `graph.edges.${i}`, nodeId: e.to, message: "A trigger cannot have incoming edges" }));
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
  for (const id of inCycle)
    out.push(err({ path: `graph.nodes.${ids.get(id)!.i}`, nodeId: id, message: "This node is part of a cycle; automations must be acyclic" }));
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
    if (!reached.has(n.id) && isComponent(n.key)) {
      out.push(err({ path: `graph.nodes.${i}`, nodeId: n.id, message: `"${n.name}" has no path from a trigger` }));
    }
  });
  return out;
}

/** Non-secret facts about a workspace's connection that validation may use. */
export interface ConnectionFacts {
  id: string;
  integration: string;
  config: Record<string, unknown>;
  state: Record<string, unknown>;
}

export interface ValidationFacts {
  /** The workspace's connections by id; undefined (offline) skips the existence checks. */
  connections?: Map<string, ConnectionFacts>;
  /** Whether an automation exists in the workspace (error handler); undefined skips the check. */
  automationExists?: (id: string) => boolean;
  /** The automation being saved (it cannot be its own error handler). */
  selfId?: string;
  /** The catalog; defaults to the registry of integrations. */
  findUnit?: typeof findUnit;
  /** Receives the nodes whose unit has an upstream `check` to run (the doors run them; offline validation does not). */
  checks?: CheckTarget[];
}

const outputSchemas = new Map<string, JsonSchemaLike>();
function outputSchemaOf(key: string, unit: { output: z.ZodType }): JsonSchemaLike {
  let s = outputSchemas.get(key);
  if (!s) {
    try {
      s = toJsonSchema(unit.output, "output");
    } catch {
      s = {};
    }
    outputSchemas.set(key, s);
  }
  return s;
}

/** Every problem of an automation document (pure). Problems carry `severity`; only errors block enabling. */
export function validateDocument(doc: unknown, facts: ValidationFacts = {}): Problem[] {
  const lookup = facts.findUnit ?? findUnit;
  const parsed = AutomationDocumentSchema.safeParse(doc);
  if (!parsed.success) return zodProblems(parsed.error, "");
  const { graph } = parsed.data;
  const problems: Problem[] = [];
  const seenIds = new Set<string>();
  const seenNames = new Map<string, string>();

  const checks: CheckTarget[] = [];
  graph.nodes.forEach((node, i) => {
    const at = `graph.nodes.${i}`;
    const before = problems.length;
    if (seenIds.has(node.id)) problems.push(err({ path: `${at}.id`, nodeId: node.id, message: `Duplicate node id "${node.id}"` }));
    seenIds.add(node.id);
    if (seenNames.has(node.name)) problems.push(err({ path: `${at}.name`, nodeId: node.id, message: `Another node is already named "${node.name}"` }));
    seenNames.set(node.name, node.id);
    const hit = lookup(node.key);
    if (!hit) {
      problems.push(err({ path: `${at}.key`, nodeId: node.id, message: `Unknown trigger or component "${node.key}"` }));
      return;
    }
    const { unit, integration } = hit;
    const cfg = unit.config.safeParse(node.config);
    if (!cfg.success) problems.push(...zodProblems(cfg.error, `${at}.config`, node.id, node.config));
    else
      // A setting the component does not have: nothing would read it. Worded as `conveyor validate` words it for a file.
      for (const k of strippedKeys(node.config, cfg.data, `${at}.config`))
        problems.push(err({ path: k.path, nodeId: node.id, message: `Unknown input "${k.key}" for ${node.key}` }));
    expressionProblems(node.config, `${at}.config`, node.id, problems);
    const c = node.connectionId ? facts.connections?.get(node.connectionId) : undefined;
    if (unit.needsConnection !== false) {
      if (!node.connectionId) problems.push(err({ path: `${at}.connectionId`, nodeId: node.id, message: `Choose a ${integration.title} connection` }));
      else if (facts.connections && !c)
        problems.push(err({ path: `${at}.connectionId`, nodeId: node.id, message: `Connection ${node.connectionId} does not exist in this workspace` }));
      else if (c && c.integration !== integration.key)
        problems.push(
          err({
            path: `${at}.connectionId`,
            nodeId: node.id,
            message: `Connection ${node.connectionId} is a ${c.integration} connection, not ${integration.key}`,
          }),
        );
    }
    if (cfg.success && unit.validate) {
      try {
        // Non-secret settings and state only (e.g. the tracker's enableOpsFeatures flag and synced cloud id).
        const connection = c && c.integration === integration.key ? c : undefined;
        for (const p of unit.validate(cfg.data, { connection }))
          problems.push(err({ path: `${at}.config${p.path ? "." + p.path : ""}`, nodeId: node.id, message: p.message }));
      } catch (e) {
        problems.push(err({ path: `${at}.config`, nodeId: node.id, message: (e as Error).message }));
      }
    }
    if (cfg.success && unit.check && problems.length === before && node.connectionId && c?.integration === integration.key) {
      checks.push({ nodeId: node.id, at: `${at}.config`, unit, connectionId: node.connectionId, config: cfg.data });
    }
  });
  facts.checks?.push(...checks);
  problems.push(
    ...graphProblems(
      graph,
      (key) => lookup(key)?.unit.kind === "trigger",
      (key) => lookup(key)?.unit.kind === "component",
    ),
  );
  const unitOf = (key: string): RefUnit | undefined => {
    const hit = lookup(key);
    return hit ? { kind: hit.unit.kind, output: outputSchemaOf(key, hit.unit) } : undefined;
  };
  for (const r of checkReferences(graph, unitOf)) {
    problems.push({ path: `graph.nodes.${r.nodeIndex}.config${r.path ? "." + r.path : ""}`, nodeId: r.nodeId, message: r.message, severity: r.severity });
  }
  const handler = parsed.data.errorHandlerId;
  if (handler) {
    if (handler === facts.selfId) problems.push(err({ path: "errorHandlerId", message: "An automation cannot be its own error handler" }));
    else if (facts.automationExists && !facts.automationExists(handler))
      problems.push(err({ path: "errorHandlerId", message: `Automation ${handler} does not exist in this workspace` }));
  }
  return problems;
}

/** Errors only (warnings never block). */
export const errorsOf = (problems: Problem[]) => problems.filter((p) => p.severity !== "warning");
