/**
 * Editor state: nodes, edges, selection-derived helpers, undo/redo history, clipboard and server problems.
 * Every action returns new objects (React Flow and zustand selectors rely on identity).
 * Server state (catalog, runs, the saved automation) stays in TanStack Query.
 */
import { applyEdgeChanges, applyNodeChanges, type Connection, type EdgeChange, type NodeChange } from "@xyflow/react";
import { create } from "zustand";
import { docToFlow, edgeId, flowToDoc, NAME_PATTERN, renameInValue, uniqueName, unitNodeA11y, unitNodeFrame, wouldCycle } from "./graph-utils";
import type { FlowEdge, FlowNode, FlowNodeData, GraphDoc, PinnedData, Problem } from "./types";
import { isUnitNode } from "./types";
import { fitPinned } from "./pinned-limits";
import { clearProblemsFor, danglingReferenceProblems, isMissingStep, withoutResolvedMissing } from "./canvas-problems";

interface Snapshot {
  nodes: FlowNode[];
  edges: FlowEdge[];
}

export interface ClipboardPayload {
  kind: "conveyor/nodes";
  nodes: Array<{ id: string; type: string; position: { x: number; y: number }; data: Record<string, unknown> }>;
  edges: Array<{ from: string; to: string }>;
}

const HISTORY_LIMIT = 100;

export interface CanvasState {
  nodes: FlowNode[];
  edges: FlowEdge[];
  past: Snapshot[];
  future: Snapshot[];
  dirty: boolean;
  problems: Problem[];
  dragging: boolean;
  kindOf: (key: string) => "trigger" | "component";

  load(graph: GraphDoc, kindOf?: (key: string) => "trigger" | "component"): void;
  toDocument(): GraphDoc;
  markSaved(): void;
  setProblems(problems: Problem[]): void;

  onNodesChange(changes: NodeChange<FlowNode>[]): void;
  onEdgesChange(changes: EdgeChange<FlowEdge>[]): void;
  connect(connection: Connection): { ok: boolean; reason?: string };

  /** Adds a node (selected); `connectFrom` also draws an edge from that node to it, in the same undo step. */
  addNode(args: {
    key: string;
    kind: "trigger" | "component";
    baseName: string;
    position: { x: number; y: number };
    config?: Record<string, unknown>;
    connectionId?: string | null;
    connectFrom?: string;
  }): string;
  addNote(position: { x: number; y: number }, text?: string): string;
  /** `labels`: display names of picked values by config path to set (null removes one), in the same undo step. */
  updateNodeConfig(nodeId: string, patch: Record<string, unknown>, labels?: Record<string, { value: string; label: string } | null>): void;
  setNodeConfig(nodeId: string, config: Record<string, unknown>): void;
  setConnection(nodeId: string, connectionId: string | null): void;
  /** Pins (or with null unpins) a node's output: test runs use it instead of calling the node's upstream. */
  setPinned(nodeId: string, pinned: PinnedData | null): void;
  updateNote(nodeId: string, text: string): void;
  renameNode(nodeId: string, name: string): { ok: boolean; reason?: string };
  select(nodeIds: string[]): void;
  deleteSelected(): void;
  deleteNodes(ids: string[]): void;
  /** Disables the given unit nodes, or enables them when all of them are disabled already. */
  toggleDisabled(ids: string[]): void;
  /** Returns a message when pinned data was left out to keep within the limits (see pinned-limits.ts). */
  duplicateSelected(): string | null;
  copySelection(): ClipboardPayload | null;
  /** The pasted nodes' ids, and a message when pinned data was left out to keep within the limits. */
  paste(payload: ClipboardPayload, at?: { x: number; y: number }): { ids: string[]; message: string | null };
  /** Loads dagre on first use (kept out of the editor bundle). */
  tidyUp(): Promise<void>;
  undo(): void;
  redo(): void;
}

let counter = 0;
export function newNodeId(prefix = "n") {
  counter += 1;
  const rand = Math.random().toString(36).slice(2, 8);
  return `${prefix}_${rand}${counter.toString(36)}`;
}

export const useCanvasStore = create<CanvasState>()((set, get) => {
  /** Records the current graph for undo, then applies `next` and marks the editor dirty. */
  const commit = (next: Partial<Snapshot> & Partial<Pick<CanvasState, "problems">>) =>
    set((s) => ({
      past: [...s.past, { nodes: s.nodes, edges: s.edges }].slice(-HISTORY_LIMIT),
      future: [],
      dirty: true,
      ...next,
    }));

  const flagDangling = (deletedNames: string[]) => {
    if (!deletedNames.length) return;
    void danglingReferenceProblems(get().nodes, deletedNames).then((found) => {
      const live = new Set(get().nodes.map((n) => n.id));
      const fresh = found.filter(
        (p) => live.has(p.nodeId!) && !get().problems.some((q) => q.nodeId === p.nodeId && q.path === p.path && q.message === p.message),
      );
      if (fresh.length) set({ problems: [...get().problems, ...fresh] });
    });
  };
  const vanished = (before: FlowNode[], after: FlowNode[]) => {
    const still = new Set(after.filter(isUnitNode).map((n) => (n.data as FlowNodeData).name));
    return before
      .filter(isUnitNode)
      .map((n) => (n.data as FlowNodeData).name)
      .filter((name) => !still.has(name));
  };
  const unitNames = (nodes: FlowNode[], ids: Set<string>) => nodes.filter((n) => ids.has(n.id) && isUnitNode(n)).map((n) => (n.data as FlowNodeData).name);

  const names = (except?: string) =>
    get()
      .nodes.filter((n) => isUnitNode(n) && n.id !== except)
      .map((n) => (n.data as FlowNodeData).name);

  return {
    nodes: [],
    edges: [],
    past: [],
    future: [],
    dirty: false,
    problems: [],
    dragging: false,
    kindOf: () => "component",

    load(graph, kindOf) {
      const k = kindOf ?? get().kindOf;
      const { nodes, edges } = docToFlow(graph, k);
      set({ nodes, edges, past: [], future: [], dirty: false, problems: [], dragging: false, kindOf: k });
    },
    toDocument: () => flowToDoc(get().nodes, get().edges),
    markSaved: () => set({ dirty: false }),
    setProblems: (problems) => set({ problems }),

    onNodesChange(changes) {
      const s = get();
      const meaningful = changes.filter((c) => c.type !== "select" && c.type !== "dimensions");
      const dragStart = changes.some((c) => c.type === "position" && c.dragging) && !s.dragging;
      const dragEnd = changes.some((c) => c.type === "position" && c.dragging === false);
      const removes = changes.some((c) => c.type === "remove");
      const nodes = applyNodeChanges(changes, s.nodes) as FlowNode[];
      if (dragStart) {
        set({ nodes, dragging: true, past: [...s.past, { nodes: s.nodes, edges: s.edges }].slice(-HISTORY_LIMIT), future: [], dirty: true });
      } else if (removes) {
        const gone = new Set(changes.filter((c) => c.type === "remove").map((c) => (c as { id: string }).id));
        commit({ nodes, edges: s.edges.filter((e) => !gone.has(e.source) && !gone.has(e.target)) });
        flagDangling(unitNames(s.nodes, gone));
      } else if (dragEnd) {
        set({ nodes, dragging: false });
      } else if (meaningful.some((c) => c.type === "position" || c.type === "add" || c.type === "replace")) {
        set({ nodes, dirty: true });
      } else {
        set({ nodes });
      }
    },
    onEdgesChange(changes) {
      const s = get();
      const edges = applyEdgeChanges(changes, s.edges);
      if (changes.some((c) => c.type === "remove")) commit({ edges });
      else set({ edges });
    },
    connect(c) {
      const s = get();
      if (!c.source || !c.target) return { ok: false };
      const target = s.nodes.find((n) => n.id === c.target);
      if (!target || target.type !== "component") return { ok: false, reason: "Only components can receive events." };
      if (s.edges.some((e) => e.source === c.source && e.target === c.target)) return { ok: false, reason: "Already connected." };
      if (wouldCycle(c.source, c.target, s.edges)) return { ok: false, reason: "That connection would make a loop." };
      commit({ edges: [...s.edges, { id: edgeId(c.source, c.target), source: c.source, target: c.target }] });
      return { ok: true };
    },

    addNode({ key, kind, baseName, position, config, connectionId, connectFrom }) {
      const id = newNodeId();
      const node: FlowNode = {
        id,
        type: kind,
        position,
        selected: true,
        ...unitNodeA11y(id),
        ...unitNodeFrame(kind),
        data: { key, name: uniqueName(baseName, names()), config: config ?? {}, connectionId: connectionId ?? null },
      };
      const s = get();
      const from = connectFrom ? s.nodes.find((n) => n.id === connectFrom) : undefined;
      const edges = from && isUnitNode(from) && kind === "component" ? [...s.edges, { id: edgeId(from.id, id), source: from.id, target: id }] : s.edges;
      commit({ nodes: [...s.nodes.map((n) => (n.selected ? { ...n, selected: false } : n)), node], edges });
      return id;
    },
    addNote(position, text = "") {
      const id = newNodeId("note");
      commit({ nodes: [...get().nodes, { id, type: "note", position, width: 220, height: 120, data: { text } }] });
      return id;
    },
    updateNodeConfig(nodeId, patch, labels) {
      const s = get();
      const withLabels = (current: FlowNodeData["labels"]) => {
        if (!labels || !Object.keys(labels).length) return current;
        const next = { ...current };
        for (const [path, l] of Object.entries(labels)) {
          if (l) next[path] = l;
          else delete next[path];
        }
        return next;
      };
      commit({
        nodes: s.nodes.map((n) =>
          n.id === nodeId && isUnitNode(n) ? { ...n, data: { ...n.data, config: { ...n.data.config, ...patch }, labels: withLabels(n.data.labels) } } : n,
        ),
        problems: clearProblemsFor(s.problems, nodeId, Object.keys(patch)),
      });
    },
    setNodeConfig(nodeId, config) {
      const s = get();
      commit({
        nodes: s.nodes.map((n) => (n.id === nodeId && isUnitNode(n) ? { ...n, data: { ...n.data, config } } : n)),
      });
    },
    setConnection(nodeId, connectionId) {
      const s = get();
      commit({
        nodes: s.nodes.map((n) => (n.id === nodeId && isUnitNode(n) ? { ...n, data: { ...n.data, connectionId } } : n)),
        problems: s.problems.filter((p) => !(p.nodeId === nodeId && p.path.startsWith("connection"))),
      });
    },
    setPinned(nodeId, pinned) {
      commit({
        nodes: get().nodes.map((n) => {
          if (n.id !== nodeId || !isUnitNode(n)) return n;
          const { pinned: _was, ...data } = n.data;
          return { ...n, data: pinned ? { ...data, pinned } : data };
        }),
      });
    },
    updateNote(nodeId, text) {
      commit({ nodes: get().nodes.map((n) => (n.id === nodeId && n.type === "note" ? { ...n, data: { text } } : n)) });
    },
    renameNode(nodeId, name) {
      const s = get();
      const node = s.nodes.find((n) => n.id === nodeId);
      if (!node || !isUnitNode(node)) return { ok: false };
      const trimmed = name.trim();
      if (!NAME_PATTERN.test(trimmed)) return { ok: false, reason: "Use letters, digits and _ (not starting with a digit)." };
      if (names(nodeId).includes(trimmed)) return { ok: false, reason: `Another node is already called ${trimmed}.` };
      const old = node.data.name;
      if (old === trimmed) return { ok: true };
      const rewritten = new Set<string>();
      commit({
        nodes: s.nodes.map((n) => {
          if (!isUnitNode(n)) return n;
          const config = renameInValue(n.data.config, old, trimmed) as Record<string, unknown>;
          if (config !== n.data.config) rewritten.add(n.id);
          if (n.id === nodeId) return { ...n, data: { ...n.data, name: trimmed, config } };
          return config === n.data.config ? n : { ...n, data: { ...n.data, config } };
        }),
        // References that followed the rename, and ones that were waiting for this name, are no longer missing.
        problems: s.problems.filter((p) => !(p.nodeId && rewritten.has(p.nodeId) && p.message.includes(`"${old}"`)) && !isMissingStep(p, trimmed)),
      });
      return { ok: true };
    },
    select(ids) {
      const want = new Set(ids);
      set({ nodes: get().nodes.map((n) => (!!n.selected === want.has(n.id) ? n : { ...n, selected: want.has(n.id) })) });
    },
    deleteSelected() {
      const s = get();
      const ids = s.nodes.filter((n) => n.selected).map((n) => n.id);
      const edgeIds = new Set(s.edges.filter((e) => e.selected).map((e) => e.id));
      if (!ids.length && !edgeIds.size) return;
      const gone = new Set(ids);
      commit({
        nodes: s.nodes.filter((n) => !gone.has(n.id)),
        edges: s.edges.filter((e) => !edgeIds.has(e.id) && !gone.has(e.source) && !gone.has(e.target)),
        problems: s.problems.filter((p) => !p.nodeId || !gone.has(p.nodeId)),
      });
      flagDangling(unitNames(s.nodes, gone));
    },
    deleteNodes(ids) {
      get().select(ids);
      get().deleteSelected();
    },
    toggleDisabled(ids) {
      const s = get();
      const want = new Set(ids);
      const targets = s.nodes.filter((n) => want.has(n.id) && isUnitNode(n));
      if (!targets.length) return;
      const disable = targets.some((n) => !(n.data as FlowNodeData).disabled);
      commit({
        nodes: s.nodes.map((n) => {
          if (!want.has(n.id) || !isUnitNode(n)) return n;
          const { disabled: _was, ...data } = n.data;
          return { ...n, data: disable ? { ...data, disabled: true } : data };
        }),
      });
    },
    duplicateSelected() {
      const payload = get().copySelection();
      return payload ? get().paste(payload).message : null;
    },
    copySelection() {
      const s = get();
      const chosen = s.nodes.filter((n) => n.selected);
      if (!chosen.length) return null;
      const ids = new Set(chosen.map((n) => n.id));
      return {
        kind: "conveyor/nodes",
        nodes: chosen.map((n) => ({ id: n.id, type: n.type ?? "component", position: n.position, data: structuredClone(n.data) as Record<string, unknown> })),
        edges: s.edges.filter((e) => ids.has(e.source) && ids.has(e.target)).map((e) => ({ from: e.source, to: e.target })),
      };
    },
    paste(payload, at) {
      const s = get();
      if (payload?.kind !== "conveyor/nodes" || !payload.nodes.length) return { ids: [], message: null };
      const fitted = fitPinned(s.nodes, payload.nodes);
      const minX = Math.min(...payload.nodes.map((n) => n.position.x));
      const minY = Math.min(...payload.nodes.map((n) => n.position.y));
      const offset = at ? { x: at.x - minX, y: at.y - minY } : { x: 40, y: 40 };
      const idMap = new Map<string, string>();
      const renames: Array<[string, string]> = [];
      const taken = names();
      const fresh: FlowNode[] = fitted.nodes.map((n) => {
        const id = newNodeId(n.type === "note" ? "note" : "n");
        idMap.set(n.id, id);
        const position = { x: n.position.x + offset.x, y: n.position.y + offset.y };
        if (n.type === "note") return { id, type: "note", position, selected: true, width: 220, height: 120, data: { text: String(n.data.text ?? "") } };
        const d = n.data as FlowNodeData;
        const name = uniqueName(d.name, taken);
        taken.push(name);
        if (name !== d.name) renames.push([d.name, name]);
        return {
          id,
          type: n.type as "trigger" | "component",
          position,
          selected: true,
          ...unitNodeA11y(id),
          ...unitNodeFrame(n.type === "trigger" ? "trigger" : "component"),
          data: { ...d, name },
        };
      });
      // References between pasted nodes follow their new names.
      for (const n of fresh) {
        if (!isUnitNode(n)) continue;
        let config: unknown = n.data.config;
        for (const [from, to] of renames) config = renameInValue(config, from, to);
        n.data = { ...n.data, config: config as Record<string, unknown> };
      }
      const edges = payload.edges
        .filter((e) => idMap.has(e.from) && idMap.has(e.to))
        .map((e) => ({ id: edgeId(idMap.get(e.from)!, idMap.get(e.to)!), source: idMap.get(e.from)!, target: idMap.get(e.to)! }));
      commit({ nodes: [...s.nodes.map((n) => (n.selected ? { ...n, selected: false } : n)), ...fresh], edges: [...s.edges, ...edges] });
      return { ids: fresh.map((n) => n.id), message: fitted.message };
    },
    async tidyUp() {
      const { layoutWithDagre } = await import("./layout");
      const s = get();
      commit({ nodes: layoutWithDagre(s.nodes, s.edges) });
    },
    undo() {
      const s = get();
      const prev = s.past[s.past.length - 1];
      if (!prev) return;
      set({
        nodes: prev.nodes,
        edges: prev.edges,
        past: s.past.slice(0, -1),
        future: [{ nodes: s.nodes, edges: s.edges }, ...s.future],
        dirty: true,
        problems: withoutResolvedMissing(s.problems, prev.nodes),
      });
      flagDangling(vanished(s.nodes, prev.nodes));
    },
    redo() {
      const s = get();
      const next = s.future[0];
      if (!next) return;
      set({
        nodes: next.nodes,
        edges: next.edges,
        future: s.future.slice(1),
        past: [...s.past, { nodes: s.nodes, edges: s.edges }],
        dirty: true,
        problems: withoutResolvedMissing(s.problems, next.nodes),
      });
      flagDangling(vanished(s.nodes, next.nodes));
    },
  };
});
