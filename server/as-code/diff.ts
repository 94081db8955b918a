/**
 * Field-level differences between two specs in canonical form, with readable paths
 * (`graph.nodes[silence].config.duration`, `graph.edges[t→s]`, `steps[0].automation`).
 * microdiff does the deep comparison (small, no dependencies, typed CREATE/REMOVE/CHANGE with
 * paths); nodes, edges and notes are first turned into maps by identity so that inserting a node
 * shows one added node, not every later node "changed".
 */
import microdiff from "microdiff";
import type { FieldChange } from "../contracts/as-code";

type Obj = Record<string, unknown>;

function byIdentity(spec: Obj): { shaped: Obj; nodeName: Map<string, string> } {
  const graph = spec.graph as { nodes?: Array<Obj>; edges?: Array<Obj>; notes?: Array<Obj> } | undefined;
  const nodeName = new Map<string, string>();
  if (!graph) return { shaped: spec, nodeName };
  for (const n of graph.nodes ?? []) nodeName.set(String(n.id), String(n.name));
  const shapedGraph: Obj = {
    nodes: Object.fromEntries((graph.nodes ?? []).map((n, i) => [String(n.id), { ...n, order: i }])),
    edges: Object.fromEntries((graph.edges ?? []).map((e) => [`${e.from}→${e.to}`, true])),
  };
  if (graph.notes) shapedGraph.notes = Object.fromEntries(graph.notes.map((n) => [String(n.id), n]));
  return { shaped: { ...spec, graph: shapedGraph }, nodeName };
}

function formatPath(path: Array<string | number>, names: Map<string, string>): string {
  let out = "";
  path.forEach((seg, i) => {
    const prev = path[i - 1];
    const inGraphMap = path[0] === "graph" && i === 2 && (prev === "nodes" || prev === "edges" || prev === "notes");
    if (inGraphMap) out += `[${prev === "nodes" ? (names.get(String(seg)) ?? seg) : seg}]`;
    else if (typeof seg === "number") out += `[${seg}]`;
    else out += (out ? "." : "") + seg;
  });
  return out;
}

/** Differences from `before` to `after` (both canonical specs of the same kind). */
export function specChanges(before: object, after: object): FieldChange[] {
  const a = byIdentity(before as Obj);
  const b = byIdentity(after as Obj);
  const names = new Map([...a.nodeName, ...b.nodeName]);
  const out: FieldChange[] = [];
  let reordered = false;
  for (const d of microdiff(a.shaped, b.shaped)) {
    // A node's position in the list only matters as a side effect of adding/removing others.
    if (d.path[0] === "graph" && d.path[1] === "nodes" && d.path[3] === "order") {
      reordered = true;
      continue;
    }
    const path = formatPath(d.path, names);
    const strip = (v: unknown) =>
      v && typeof v === "object" && "order" in (v as Obj) ? Object.fromEntries(Object.entries(v as Obj).filter(([k]) => k !== "order")) : v;
    if (d.type === "CREATE") out.push({ path, op: "add", after: strip(d.value) });
    else if (d.type === "REMOVE") out.push({ path, op: "remove", before: strip(d.oldValue) });
    else out.push({ path, op: "change", before: d.oldValue, after: d.value });
  }
  if (reordered && !out.some((c) => c.path.startsWith("graph.nodes[") && c.op !== "change")) {
    out.push({ path: "graph.nodes", op: "change", before: "(order)", after: "(new order)" });
  }
  return out;
}
