"use client";
/** <ReactFlow> wiring only: store-driven nodes/edges, drop from the palette, connect rules, minimap and controls. */
import { Background, BackgroundVariant, Controls, MiniMap, ReactFlow, useReactFlow, type Connection } from "@xyflow/react";
import { useCallback, type DragEvent } from "react";
import { toast } from "sonner";
import { useCanvasStore } from "./canvas-store";
import { useCatalog } from "./catalog-context";
import { nodeTypes } from "./node-types";
import { DRAG_MIME } from "./palette/building-blocks";
import type { PaletteUnit } from "./types";

const defaultEdgeOptions = { type: "smoothstep", style: { strokeWidth: 1.75, stroke: "#a1a1aa" } };
const proOptions = { hideAttribution: true };

export function CanvasFlow({ onAddUnit, readOnly }: { onAddUnit: (unit: PaletteUnit, position: { x: number; y: number }) => void; readOnly?: boolean }) {
  const nodes = useCanvasStore((s) => s.nodes);
  const edges = useCanvasStore((s) => s.edges);
  const onNodesChange = useCanvasStore((s) => s.onNodesChange);
  const onEdgesChange = useCanvasStore((s) => s.onEdgesChange);
  const connect = useCanvasStore((s) => s.connect);
  const { screenToFlowPosition } = useReactFlow();
  const { byKey } = useCatalog();

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

  return (
    <ReactFlow
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      onNodesChange={onNodesChange}
      onEdgesChange={onEdgesChange}
      onConnect={onConnect}
      onDragOver={onDragOver}
      onDrop={onDrop}
      defaultEdgeOptions={defaultEdgeOptions}
      proOptions={proOptions}
      deleteKeyCode={null}
      multiSelectionKeyCode={["Meta", "Control", "Shift"]}
      selectionKeyCode="Shift"
      nodesDraggable={!readOnly}
      nodesConnectable={!readOnly}
      onlyRenderVisibleElements
      fitView
      fitViewOptions={{ maxZoom: 1.1, padding: 0.2 }}
      minZoom={0.1}
      className="bg-canvas"
    >
      <Background variant={BackgroundVariant.Dots} gap={18} size={1.2} color="#d4d4d8" />
      <Controls showInteractive={false} position="bottom-left" />
      <MiniMap pannable zoomable position="bottom-right" style={{ width: 160, height: 110 }} className="!rounded-md !border !border-border" nodeStrokeWidth={2} maskColor="rgba(244,244,245,0.7)" />
    </ReactFlow>
  );
}
