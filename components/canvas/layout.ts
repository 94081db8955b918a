/** "Tidy up": left-to-right layered layout with dagre. Notes keep their place. */
import dagre from "@dagrejs/dagre";
import type { FlowEdge, FlowNode } from "./types";

const W = 240;
const H = 84;

export function layoutWithDagre(nodes: FlowNode[], edges: FlowEdge[]): FlowNode[] {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "LR", nodesep: 40, ranksep: 80, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  const units = nodes.filter((n) => n.type !== "note");
  for (const n of units) g.setNode(n.id, { width: n.measured?.width ?? W, height: n.measured?.height ?? H });
  for (const e of edges) if (g.hasNode(e.source) && g.hasNode(e.target)) g.setEdge(e.source, e.target);
  dagre.layout(g);
  return nodes.map((n) => {
    if (n.type === "note") return n;
    const p = g.node(n.id);
    if (!p) return n;
    const w = n.measured?.width ?? W;
    const h = n.measured?.height ?? H;
    return { ...n, position: { x: Math.round(p.x - w / 2), y: Math.round(p.y - h / 2) } };
  });
}
