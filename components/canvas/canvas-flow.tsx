"use client";
/** <ReactFlow> wiring only: store-driven nodes/edges, drop from the palette, connect rules, menus, minimap and controls. */
import {
  Background,
  BackgroundVariant,
  Controls,
  MarkerType,
  MiniMap,
  ReactFlow,
  useReactFlow,
  useStore,
  type Connection,
  type DefaultEdgeOptions,
  type Edge,
  type Viewport,
} from "@xyflow/react";
import { useCallback, useMemo, type DragEvent, type MouseEvent as ReactMouseEvent } from "react";
import { toast } from "sonner";
import { useTheme } from "@/components/theme/theme";
import { useCanvasStore } from "./canvas-store";
import { useCatalog } from "./catalog-context";
import { LOD_ZOOM } from "./graph-utils";
import { nodeTypes } from "./node-types";
import { DRAG_MIME } from "./palette/building-blocks";
import type { FlowNodeData, PaletteUnit } from "./types";

/** Below this canvas width (the node panel and the building blocks both open on a laptop) the minimap is not shown: it covered nodes and the controls. */
export const MINIMAP_MIN_WIDTH = 576;
/**
 * The fit used everywhere (initial, "1", the controls, after loading and while the view stays fitted), for a
 * canvas `width` px wide: nodes land in the part of the canvas that the controls (bottom left) and the
 * minimap (bottom right, when shown) do not cover, with a small margin elsewhere.
 */
export function fitOptions(width: number) {
  const minimap = width >= MINIMAP_MIN_WIDTH;
  return { padding: { top: "24px", right: "24px", left: "56px", bottom: minimap ? "140px" : "24px" }, maxZoom: 1.1 } as const;
}

const EDGE_COLOR = { light: "#a1a1aa", dark: "#6b6b74" } as const;
const edgeOptions = (theme: "light" | "dark"): DefaultEdgeOptions => ({
  type: "smoothstep",
  style: { strokeWidth: 1.75, stroke: EDGE_COLOR[theme] },
  markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16, color: EDGE_COLOR[theme] },
});
const EDGE_OPTIONS = { light: edgeOptions("light"), dark: edgeOptions("dark") };
const DISABLED_EDGE_STYLE = { strokeDasharray: "5 4", opacity: 0.6 };
const proOptions = { hideAttribution: true };

export interface CanvasFlowProps {
  onAddUnit: (unit: PaletteUnit, position: { x: number; y: number }) => void;
  readOnly?: boolean;
  onNodeMenu?: (ids: string[], x: number, y: number) => void;
  onPaneMenu?: (x: number, y: number) => void;
  /** A pan or zoom by the user ended here (the view may no longer be the fitted one). */
  onUserMove?: (viewport: Viewport) => void;
  /** The controls' fit button was used. */
  onFitted?: () => void;
}

export function CanvasFlow({ onAddUnit, readOnly, onNodeMenu, onPaneMenu, onUserMove, onFitted }: CanvasFlowProps) {
  const nodes = useCanvasStore((s) => s.nodes);
  const edges = useCanvasStore((s) => s.edges);
  // A string, so that only enabling/disabling (not every drag frame) recomputes the edge styles.
  const disabledKey = useCanvasStore((s) =>
    s.nodes
      .filter((n) => (n.data as FlowNodeData).disabled)
      .map((n) => n.id)
      .join(","),
  );
  const onNodesChange = useCanvasStore((s) => s.onNodesChange);
  const onEdgesChange = useCanvasStore((s) => s.onEdgesChange);
  const connect = useCanvasStore((s) => s.connect);
  const { screenToFlowPosition } = useReactFlow();
  const { byKey } = useCatalog();
  const { resolved: theme } = useTheme();
  // A boolean: the flow re-renders when the zoom crosses the threshold, not on every pan or zoom frame.
  const far = useStore((s) => s.transform[2] < LOD_ZOOM);
  const width = useStore((s) => s.width);
  const fit = useMemo(() => fitOptions(width), [width]);
  const minimap = width >= MINIMAP_MIN_WIDTH;

  // Names change rarely; a string keeps drag frames from rebuilding the edges below.
  const namesKey = useCanvasStore((s) => s.nodes.map((n) => `${n.id}\u0000${(n.data as FlowNodeData).name ?? ""}`).join("\u0001"));
  // Edges are named by their nodes ("Connection from start to fetch"); edges into or out of a disabled node
  // are dashed: events pass through, nothing runs there.
  const shownEdges = useMemo(() => {
    const names = new Map(namesKey.split("\u0001").map((p) => p.split("\u0000") as [string, string]));
    const off = new Set(disabledKey ? disabledKey.split(",") : []);
    return edges.map(
      (e): Edge => ({
        ...e,
        ariaLabel: `Connection from ${names.get(e.source) || "note"} to ${names.get(e.target) || "note"}`,
        ...(off.has(e.source) || off.has(e.target) ? { style: { ...EDGE_OPTIONS[theme].style, ...DISABLED_EDGE_STYLE } } : {}),
      }),
    );
  }, [edges, disabledKey, namesKey, theme]);

  const onConnect = useCallback(
    (c: Connection) => {
      const r = connect(c);
      if (!r.ok && r.reason) toast.error(r.reason);
    },
    [connect],
  );
  const onDragOver = useCallback((e: DragEvent) => {
    if (e.dataTransfer.types.includes(DRAG_MIME)) {
      e.preventDefault();
      e.dataTransfer.dropEffect = "move";
    }
  }, []);
  const onDrop = useCallback(
    (e: DragEvent) => {
      const key = e.dataTransfer.getData(DRAG_MIME);
      const unit = key && byKey.get(key);
      if (!unit) return;
      e.preventDefault();
      const p = screenToFlowPosition({ x: e.clientX, y: e.clientY });
      onAddUnit(unit, { x: p.x - 120, y: p.y - 30 });
    },
    [byKey, onAddUnit, screenToFlowPosition],
  );
  const nodeMenu = useCallback(
    (e: ReactMouseEvent, ids: string[]) => {
      if (!onNodeMenu) return;
      e.preventDefault();
      onNodeMenu(ids, e.clientX, e.clientY);
    },
    [onNodeMenu],
  );

  return (
    <ReactFlow
      nodes={nodes}
      edges={shownEdges}
      nodeTypes={nodeTypes}
      onNodesChange={onNodesChange}
      onEdgesChange={onEdgesChange}
      onConnect={onConnect}
      onDragOver={onDragOver}
      onDrop={onDrop}
      onNodeContextMenu={(e, n) => nodeMenu(e, [n.id])}
      onSelectionContextMenu={(e, list) =>
        nodeMenu(
          e,
          list.map((n) => n.id),
        )
      }
      onPaneContextMenu={(e) => {
        if (!onPaneMenu) return;
        e.preventDefault();
        onPaneMenu(e.clientX, e.clientY);
      }}
      onMoveEnd={(e, viewport) => e && onUserMove?.(viewport)}
      defaultEdgeOptions={EDGE_OPTIONS[theme]}
      defaultMarkerColor={EDGE_COLOR[theme]}
      colorMode={theme}
      proOptions={proOptions}
      deleteKeyCode={null}
      multiSelectionKeyCode={["Meta", "Control", "Shift"]}
      selectionKeyCode="Shift"
      nodesDraggable={!readOnly}
      nodesConnectable={!readOnly}
      onlyRenderVisibleElements
      fitView
      fitViewOptions={fit}
      minZoom={0.1}
      className={far ? "bg-canvas canvas-far" : "bg-canvas"}
    >
      <Background variant={BackgroundVariant.Dots} gap={18} size={1.2} color="var(--canvas-dots)" />
      <Controls showInteractive={false} position="bottom-left" fitViewOptions={fit} onFitView={onFitted} />
      {minimap && (
        <MiniMap
          pannable
          zoomable
          position="bottom-right"
          style={{ width: 160, height: 110 }}
          className="!rounded-md !border !border-border max-md:!hidden"
          nodeStrokeWidth={2}
          maskColor={theme === "dark" ? "rgba(14,14,16,0.7)" : "rgba(244,244,245,0.7)"}
        />
      )}
    </ReactFlow>
  );
}
