/**
 * Pure planning of derived runs (db/stores/runs.ts `createDerived`): which earlier outputs a new run
 * takes over and which steps it queues.
 *
 * - Retry with the current version: walk the current version's graph from the trigger the failed run
 *   started from; a node whose step succeeded in that run, reached from the same parent step and still
 *   of the same key, is reused (its output feeds expressions, under the node's current name); the first
 *   node on each path that did not succeed there (the failed step, a new node, a node whose key changed,
 *   a step that never ran) is queued, and everything after it runs from the current graph.
 * - Test runs: the nodes between the chosen trigger and the node under test, in graph order.
 */
import type { DerivedRun, RunStepRow, StepOrigin } from "@/db/types";
import type { Envelope } from "@/integrations/core/define";
import type { IndexedGraph } from "../../graphs";

type Seeds = Pick<DerivedRun, "seeds" | "start">;

export function planRetryWithCurrent(prev: { id: string; version: number; triggerNodeId: string }, steps: RunStepRow[], current: IndexedGraph): Seeds {
  const done = new Map<string, RunStepRow>();
  for (const st of steps) if (st.status === "succeeded" && st.output) done.set(`${st.parentStepId ?? ""}|${st.nodeId}`, st);
  const out: Seeds = { seeds: [], start: [] };
  const used = new Set<string>();
  const visit = (nodeId: string, parentOld: string | null, parentRef: string | null) => {
    const node = current.byId.get(nodeId);
    if (!node) return;
    const old = done.get(`${parentOld ?? ""}|${nodeId}`);
    if (old && old.key === node.key && !used.has(old.id)) {
      used.add(old.id);
      const origin: StepOrigin = old.origin ?? { kind: "run", runId: prev.id, stepId: old.id, version: prev.version };
      out.seeds.push({ ref: old.id, parentRef, nodeId, name: node.name, key: node.key, input: old.input ?? null, output: old.output as Envelope, origin });
      for (const child of current.children.get(nodeId) ?? []) visit(child, old.id, old.id);
    } else out.start.push({ nodeId, parentRef });
  };
  for (const child of current.children.get(prev.triggerNodeId) ?? []) visit(child, null, null);
  return out;
}

/** Node ids with a path to `nodeId` (its upstream). */
export function upstreamIds(g: IndexedGraph, nodeId: string): Set<string> {
  const parents = new Map<string, string[]>();
  for (const [from, kids] of g.children) for (const k of kids) parents.set(k, [...(parents.get(k) ?? []), from]);
  const out = new Set<string>();
  const stack = [nodeId];
  while (stack.length) {
    for (const p of parents.get(stack.pop()!) ?? []) {
      if (out.has(p)) continue;
      out.add(p);
      stack.push(p);
    }
  }
  return out;
}

/** Node ids reachable from `nodeId` (its downstream). */
export function downstreamIds(g: IndexedGraph, nodeId: string): Set<string> {
  const out = new Set<string>();
  const stack = [nodeId];
  while (stack.length) {
    for (const c of g.children.get(stack.pop()!) ?? []) {
      if (out.has(c)) continue;
      out.add(c);
      stack.push(c);
    }
  }
  return out;
}

/** The nodes on paths from `from` to `to` (both excluded), parents before children. */
export function nodesBetween(g: IndexedGraph, from: string, to: string): string[] {
  const after = downstreamIds(g, from);
  const before = upstreamIds(g, to);
  const between = new Set([...after].filter((id) => before.has(id)));
  // Depth-first post-order from `from`, reversed: a topological order of the acyclic graph.
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    for (const c of g.children.get(id) ?? []) visit(c);
    if (between.has(id)) order.push(id);
  };
  visit(from);
  return order.reverse();
}
