/** Parsed, indexed graphs of automation versions (immutable, so cached by automation id + version). */
import type { Db } from "@/db/client";
import { GraphSchema, type Graph, type GraphNode } from "../contracts/graph";

export interface IndexedGraph {
  /** The version's graph as the runner sees it: disabled nodes removed, edges rewired around them. */
  graph: Graph;
  byId: Map<string, GraphNode>;
  children: Map<string, string[]>;
}

const cache = new Map<string, IndexedGraph>();

/**
 * Indexes a graph for the runner. Disabled nodes (the editor's "disable") are cut out here, so the
 * executor never sees them: the children of a disabled node become children of its parents (through
 * chains of disabled nodes), a disabled trigger is not a trigger any more, and a child reached twice
 * after the rewiring is reached once.
 */
export function indexGraph(graph: Graph): IndexedGraph {
  const all = new Map(graph.nodes.map((n) => [n.id, n]));
  const rawChildren = new Map<string, string[]>();
  for (const e of graph.edges) {
    if (!all.has(e.from) || !all.has(e.to)) continue;
    const list = rawChildren.get(e.from) ?? [];
    list.push(e.to);
    rawChildren.set(e.from, list);
  }
  const isDisabled = (id: string) => all.get(id)?.disabled === true;
  const anyDisabled = graph.nodes.some((n) => n.disabled);
  if (!anyDisabled) return { graph, byId: all, children: rawChildren };

  // The enabled nodes reachable from `id` through disabled ones only (the graph is acyclic, so this ends).
  const throughDisabled = (id: string, out: string[], seen: Set<string>) => {
    for (const child of rawChildren.get(id) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      if (isDisabled(child)) throughDisabled(child, out, seen);
      else out.push(child);
    }
  };
  const nodes = graph.nodes.filter((n) => !n.disabled);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const children = new Map<string, string[]>();
  const edges: Graph["edges"] = [];
  for (const n of nodes) {
    const list: string[] = [];
    throughDisabled(n.id, list, new Set());
    if (!list.length) continue;
    children.set(n.id, list);
    for (const to of list) edges.push({ from: n.id, to });
  }
  return { graph: { ...graph, nodes, edges }, byId, children };
}

export function getVersionGraph(db: Db, automationId: string, version: number): IndexedGraph {
  const key = `${automationId}@${version}`;
  let hit = cache.get(key);
  if (!hit) {
    const row = db.$client
      .prepare("select graph from automation_versions where automation_id = ? and version = ?")
      .get(automationId, version) as { graph: string } | undefined;
    if (!row) throw new Error(`Automation ${automationId} has no version ${version}`);
    hit = indexGraph(GraphSchema.parse(JSON.parse(row.graph)));
    if (cache.size > 1000) cache.clear();
    cache.set(key, hit);
  }
  return hit;
}
