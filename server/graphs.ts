/**
 * Parsed, indexed graphs of automation versions. Versions are immutable, so they are cached by
 * automation id + version (shared by the runner, the ingress and the services).
 */
import type { Store } from "@/db/store";
import { GraphSchema, type Graph, type GraphNode, type PinnedData } from "./contracts/graph";

export interface IndexedGraph {
  /** The version's graph as the runner sees it: disabled nodes removed, edges rewired around them, pinned outputs left out. */
  graph: Graph;
  byId: Map<string, GraphNode>;
  children: Map<string, string[]>;
  /**
   * Nodes that have a pinned output. The data itself is not kept in the cache (up to 1 MiB per node, and
   * production runs never use it): test runs read it with `pinnedOutputs`.
   */
  pinned: Set<string>;
}

const cache = new Map<string, IndexedGraph>();

/**
 * Indexes a graph for the runner. Disabled nodes (the editor's "disable") are cut out here, so the
 * executor never sees them: the children of a disabled node become children of its parents (through
 * chains of disabled nodes), a disabled trigger is not a trigger any more, and a child reached twice
 * after the rewiring is reached once.
 */
export function indexGraph(stored: Graph): IndexedGraph {
  const pinned = new Set<string>();
  const graph = stored.nodes.some((n) => n.pinned)
    ? {
        ...stored,
        nodes: stored.nodes.map((n) => {
          if (!n.pinned) return n;
          if (!n.disabled) pinned.add(n.id);
          const { pinned: _data, ...rest } = n;
          return rest;
        }),
      }
    : stored;
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
  if (!anyDisabled) return { graph, byId: all, children: rawChildren, pinned };

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
  return { graph: { ...graph, nodes, edges }, byId, children, pinned };
}

/** The pinned outputs of a version's nodes (read from the stored version, uncached; test runs only). */
export async function pinnedOutputs(store: Store, automationId: string, version: number): Promise<Map<string, PinnedData>> {
  const raw = await store.versions.graph(automationId, version);
  const out = new Map<string, PinnedData>();
  if (!raw) return out;
  for (const n of GraphSchema.parse(raw).nodes) if (n.pinned && !n.disabled) out.set(n.id, n.pinned);
  return out;
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
