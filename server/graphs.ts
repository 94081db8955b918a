/**
 * Parsed, indexed graphs of automation versions. Versions are immutable, so they are cached by
 * automation id + version (shared by the runner, the ingress and the services).
 */
import type { Store } from "@/db/store";
import { GraphSchema, type Graph, type GraphNode } from "./contracts/graph";

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

/** The graph of one version (cached); throws when the version does not exist (automation deleted). */
export async function getVersionGraph(store: Store, automationId: string, version: number): Promise<IndexedGraph> {
  const key = `${automationId}@${version}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const graph = await store.versions.graph(automationId, version);
  if (!graph) throw new Error(`Automation ${automationId} has no version ${version}`);
  const indexed = indexGraph(GraphSchema.parse(graph));
  if (cache.size > 1000) cache.clear();
  cache.set(key, indexed);
  return indexed;
}

/** The cached graph when present (hot paths avoid an await). */
export function cachedVersionGraph(automationId: string, version: number): IndexedGraph | undefined {
  return cache.get(`${automationId}@${version}`);
}

/** Node name and key for step records (unknown nodes keep their id). */
export function nodeInfoOf(graph: IndexedGraph | undefined) {
  return (nodeId: string) => {
    const n = graph?.byId.get(nodeId);
    return { name: n?.name ?? nodeId, key: n?.key ?? "unknown" };
  };
}
