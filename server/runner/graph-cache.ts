/** Parsed, indexed graphs of automation versions (immutable, so cached by automation id + version). */
import type { Db } from "@/db/client";
import { GraphSchema, type Graph, type GraphNode } from "../contracts/graph";

export interface IndexedGraph {
  graph: Graph;
  byId: Map<string, GraphNode>;
  children: Map<string, string[]>;
}

const cache = new Map<string, IndexedGraph>();

export function indexGraph(graph: Graph): IndexedGraph {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const children = new Map<string, string[]>();
  for (const e of graph.edges) {
    if (!byId.has(e.from) || !byId.has(e.to)) continue;
    const list = children.get(e.from) ?? [];
    list.push(e.to);
    children.set(e.from, list);
  }
  return { graph, byId, children };
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
