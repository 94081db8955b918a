"use client";
/**
 * Adding a node from the palette. Dropped: where it was dropped. Clicked: right of the selected node and
 * connected from it (when the new node can receive events), or in the middle of the view when nothing is
 * selected; never on top of another node. The new node is selected and kept in view.
 */
import { useReactFlow } from "@xyflow/react";
import { useCallback } from "react";
import { useCanvasStore } from "./canvas-store";
import { prefillConfig } from "./config-panel/schema-utils";
import { defaultNameFor, freeSpot } from "./graph-utils";
import { isUnitNode, type PaletteUnit } from "./types";

type Flow = ReturnType<typeof useReactFlow>;

export function useAddUnit(
  readOnly: boolean,
  view: { isFitted(): boolean; fit(): Promise<void> },
  connections: Array<{ id: string; integration: string }> | undefined,
) {
  const flow = useReactFlow();
  return useCallback(
    (unit: PaletteUnit, position?: { x: number; y: number }) => {
      if (readOnly) return;
      const s = useCanvasStore.getState();
      const selected = s.nodes.filter((n) => n.selected);
      const anchor = !position && selected.length === 1 && isUnitNode(selected[0]!) ? selected[0] : undefined;
      let at = position;
      if (!at) {
        const box = document.querySelector(".react-flow")?.getBoundingClientRect();
        const around = flow.screenToFlowPosition({ x: (box?.left ?? 0) + (box?.width ?? 800) / 2, y: (box?.top ?? 0) + (box?.height ?? 600) / 2 });
        // A trigger starts a new flow: it is not placed after (or wired to) the selection.
        at = freeSpot(s.nodes, anchor && unit.kind === "component" ? { anchor } : { around });
      }
      // The only connection of the node's integration is chosen for it; fields start at their form prefill.
      const usable = unit.needsConnection ? (connections ?? []).filter((c) => c.integration === unit.integration.key) : [];
      const id = s.addNode({
        key: unit.key,
        kind: unit.kind,
        baseName: defaultNameFor(unit),
        position: at,
        config: prefillConfig(unit.config),
        connectionId: usable.length === 1 ? usable[0]!.id : null,
        connectFrom: anchor && unit.kind === "component" ? anchor.id : undefined,
      });
      // The node panel opens and narrows the canvas: a fitted view stays fitted (the whole graph, new node
      // included); otherwise pan just enough to show the new node.
      setTimeout(() => (view.isFitted() ? void view.fit() : revealNode(flow, id)), 60);
      return id;
    },
    [flow, readOnly, view, connections],
  );
}

/** Pans (at the current zoom) just enough for the node to be inside the canvas with a margin, if it is not. */
export function revealNode(flow: Flow, id: string) {
  const node = flow.getNode(id);
  const box = document.querySelector(".react-flow")?.getBoundingClientRect();
  if (!node || !box) return;
  const { x, y, zoom } = flow.getViewport();
  const m = 24;
  const w = (node.measured?.width ?? 240) * zoom;
  const h = (node.measured?.height ?? 80) * zoom;
  const left = node.position.x * zoom + x;
  const top = node.position.y * zoom + y;
  const dx = w + 2 * m > box.width ? box.width / 2 - (left + w / 2) : left < m ? m - left : left + w > box.width - m ? box.width - m - (left + w) : 0;
  const dy = h + 2 * m > box.height ? box.height / 2 - (top + h / 2) : top < m ? m - top : top + h > box.height - m ? box.height - m - (top + h) : 0;
  if (dx || dy) void flow.setViewport({ x: x + dx, y: y + dy, zoom }, { duration: 200 });
}
