/** Pure helpers between the automation document and React Flow's nodes/edges. No React here. */
import type { NodeHandle, Position } from "@xyflow/react";
import type { CatalogUnit, FlowEdge, FlowNode, FlowNodeData, GraphDoc, NoteData } from "./types";
import { isUnitNode } from "./types";

export function edgeId(from: string, to: string) {
  return `e:${from}->${to}`;
}

/** The sr-only element in a unit node that names it (React Flow's wrapper points at it; see unit-node.tsx). */
export const nodeLabelId = (id: string) => `cv-node-label-${id}`;
/** Accessible naming for a unit node's wrapper: constant per id, so it never needs updating on rename. */
export const unitNodeA11y = (id: string) => ({ domAttributes: { "aria-labelledby": nodeLabelId(id) } });

export function docToFlow(graph: GraphDoc, kindOf: (key: string) => "trigger" | "component"): { nodes: FlowNode[]; edges: FlowEdge[] } {
  const nodes: FlowNode[] = graph.nodes.map((n, i) => ({
    id: n.id,
    type: kindOf(n.key),
    position: n.position ?? { x: i * 280, y: 0 },
    ...unitNodeFrame(kindOf(n.key)),
    ...unitNodeA11y(n.id),
    data: {
      key: n.key,
      name: n.name,
      config: n.config ?? {},
      connectionId: n.connectionId ?? null,
      ...(n.labels ? { labels: n.labels } : {}),
      ...(n.disabled ? { disabled: true } : {}),
      ...(n.pinned ? { pinned: n.pinned } : {}),
    },
  }));
  for (const note of graph.notes ?? []) {
    nodes.push({
      id: note.id,
      type: "note",
      position: note.position,
      data: { text: note.text },
      ...(note.size ? { width: note.size.width, height: note.size.height } : {}),
    });
  }
  const edges: FlowEdge[] = graph.edges.map((e) => ({ id: edgeId(e.from, e.to), source: e.from, target: e.to }));
  return { nodes, edges };
}

export function flowToDoc(nodes: FlowNode[], edges: FlowEdge[]): GraphDoc {
  const doc: GraphDoc = { nodes: [], edges: [], notes: [] };
  for (const n of nodes) {
    const position = { x: Math.round(n.position.x), y: Math.round(n.position.y) };
    if (isUnitNode(n)) {
      const d = n.data as FlowNodeData;
      doc.nodes.push({
        id: n.id,
        name: d.name,
        key: d.key,
        connectionId: d.connectionId ?? null,
        config: d.config,
        position,
        ...(d.labels && Object.keys(d.labels).length ? { labels: d.labels } : {}),
        ...(d.disabled ? { disabled: true } : {}),
        ...(d.pinned ? { pinned: d.pinned } : {}),
      });
    } else {
      const size = n.width && n.height ? { width: Math.round(n.width), height: Math.round(n.height) } : undefined;
      doc.notes!.push({ id: n.id, text: (n.data as NoteData).text, position, ...(size ? { size } : {}) });
    }
  }
  doc.edges = edges.map((e) => ({ from: e.source, to: e.target }));
  return doc;
}

/** A readable, unique node name derived from the unit key (`metrics.createSilence` → `createSilence`, `createSilence2`). */
export function uniqueName(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  const clean = base.replace(/[^A-Za-z0-9_]/g, "") || "node";
  if (!used.has(clean)) return clean;
  for (let i = 2; ; i++) if (!used.has(`${clean}${i}`)) return `${clean}${i}`;
}

export function defaultNameFor(unit: Pick<CatalogUnit, "key">) {
  return unit.key.split(".").pop() ?? unit.key;
}

export const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Rewrites `$steps.old` (and `$steps["old"]`) references inside every string of a config value. */
export function renameInValue(value: unknown, from: string, to: string): unknown {
  if (typeof value === "string") {
    if (!value.includes(from)) return value;
    const dotted = new RegExp(`\\$steps\\.${escapeRe(from)}(?![A-Za-z0-9_])`, "g");
    const bracket = new RegExp(`\\$steps\\[(["'])${escapeRe(from)}\\1\\]`, "g");
    return value.replace(dotted, `$steps.${to}`).replace(bracket, `$steps[$1${to}$1]`);
  }
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const r = renameInValue(v, from, to);
      if (r !== v) changed = true;
      return r;
    });
    return changed ? out : value;
  }
  if (value && typeof value === "object") {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const r = renameInValue(v, from, to);
      if (r !== v) changed = true;
      out[k] = r;
    }
    return changed ? out : value;
  }
  return value;
}

/** Ids of every node with a path to `nodeId` (its upstream), nearest first. */
export function upstreamOf(nodeId: string, edges: Array<{ source: string; target: string }>): string[] {
  const seen = new Set<string>();
  const order: string[] = [];
  let frontier = [nodeId];
  while (frontier.length) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const e of edges) {
        if (e.target === id && !seen.has(e.source)) {
          seen.add(e.source);
          order.push(e.source);
          next.push(e.source);
        }
      }
    }
    frontier = next;
  }
  return order;
}

/** Whether adding from→to would close a cycle. */
export function wouldCycle(from: string, to: string, edges: Array<{ source: string; target: string }>): boolean {
  if (from === to) return true;
  return upstreamOf(from, edges).includes(to);
}

/** A one-line summary of a node's key config for the node card; picked values show their label ("Bug", not 10002). */
export function summarize(config: Record<string, unknown>, max = 48, labels?: Record<string, { value: string; label: string }>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(config)) {
    if (v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0)) continue;
    let text: string;
    const l = labels?.[k];
    if (l && (typeof v === "string" || typeof v === "number") && String(v) === l.value) text = l.label;
    else if (typeof v === "string") text = v;
    else if (Array.isArray(v)) text = v.every((x) => typeof x === "string") ? v.join(", ") : `${v.length} item${v.length === 1 ? "" : "s"}`;
    else if (typeof v === "object") continue;
    else text = String(v);
    parts.push(`${k}: ${text}`);
    if (parts.join(" · ").length > max) break;
  }
  const s = parts.join(" · ");
  return s.length > max ? s.slice(0, max - 1) + "…" : s;
}

export const NODE_W = 240;
export const NODE_H = 80;

/**
 * A unit node's size and handle boxes, known without measuring. React Flow neither observes nor measures a
 * node that comes with both, so opening a 1,000-node automation skips a ResizeObserver pass over every node
 * and its handles, and the node list update it caused (docs/editor-bench.md). unit-node.tsx draws both of
 * its views at exactly NODE_W × NODE_H; the handles are React Flow's 12 px handles on the left and right
 * edges inside the node's 1 px border, vertically centred (where its stylesheet puts them).
 */
export function unitNodeFrame(kind: "trigger" | "component"): { measured: { width: number; height: number }; handles: NodeHandle[] } {
  const y = NODE_H / 2 - 6;
  const source: NodeHandle = { id: null, type: "source", position: "right" as Position, x: NODE_W - 1 - 6, y, width: 12, height: 12 };
  const target: NodeHandle = { id: null, type: "target", position: "left" as Position, x: 1 - 6, y, width: 12, height: 12 };
  return { measured: { width: NODE_W, height: NODE_H }, handles: kind === "trigger" ? [source] : [target, source] };
}
/** Below this zoom, unit nodes are drawn as plain boxes (unit-node.tsx; `.canvas-far` in app/globals.css): their text would be under ~5 px. */
export const LOD_ZOOM = 0.35;
const GAP_X = 80;
const GAP_Y = 36;

type Box = { position: { x: number; y: number }; measured?: { width?: number; height?: number }; width?: number | null; height?: number | null };
const sizeOf = (n: Box) => ({ w: n.measured?.width ?? n.width ?? NODE_W, h: n.measured?.height ?? n.height ?? NODE_H });

/**
 * Where a new node goes so that it covers nothing: right of `anchor` (the selected node) on its row, or at
 * `around` (the view's centre) when there is no anchor; stepping down, then up, row by row until free.
 */
export function freeSpot(nodes: Box[], opts: { anchor?: Box; around?: { x: number; y: number } }): { x: number; y: number } {
  const start = opts.anchor
    ? { x: opts.anchor.position.x + sizeOf(opts.anchor).w + GAP_X, y: opts.anchor.position.y }
    : { x: Math.round((opts.around?.x ?? 0) - NODE_W / 2), y: Math.round((opts.around?.y ?? 0) - NODE_H / 2) };
  const hits = (x: number, y: number) =>
    nodes.some((n) => {
      const { w, h } = sizeOf(n);
      return x < n.position.x + w + 16 && x + NODE_W + 16 > n.position.x && y < n.position.y + h + 12 && y + NODE_H + 12 > n.position.y;
    });
  const step = NODE_H + GAP_Y;
  for (let i = 0; i < 200; i++) {
    // 0, +1, -1, +2, -2 … rows; below first, the way branches usually grow.
    const row = i === 0 ? 0 : i % 2 ? (i + 1) / 2 : -i / 2;
    const y = start.y + row * step;
    if (!hits(start.x, y)) return { x: start.x, y };
  }
  return { x: start.x, y: start.y + step };
}

/** The selected node when exactly one unit node is selected: its id, type and data (stable across drag frames). */
export function selectedUnit(nodes: FlowNode[]): { id: string | null; type: string | null; data: FlowNodeData | null } {
  let one: FlowNode | null = null;
  for (const n of nodes) {
    if (!n.selected) continue;
    if (one) return { id: null, type: null, data: null };
    one = n;
  }
  return one && isUnitNode(one) ? { id: one.id, type: one.type ?? null, data: one.data as FlowNodeData } : { id: null, type: null, data: null };
}
