"use client";
/** The canvas's right-click menus: one for nodes (or a selection), one for the empty canvas. */
import { useReactFlow } from "@xyflow/react";
import {
  ClipboardPaste,
  Copy,
  CopyPlus,
  LayoutGrid,
  Maximize,
  MousePointerSquareDashed,
  Play,
  Power,
  PowerOff,
  Settings2,
  Spline,
  StickyNote,
  Trash2,
} from "lucide-react";
import { useCallback, useState, type ReactNode } from "react";
import { useCanvasStore } from "./canvas-store";
import { warnPinnedLeftOut } from "./use-node-clipboard";
import { ContextMenu, type MenuItem } from "./context-menu";
import { isUnitNode, type FlowNodeData } from "./types";

export interface MenuActions {
  readOnly: boolean;
  copy(): void;
  paste(at?: { x: number; y: number }): void;
  connectFrom(nodeId: string): void;
  /** Test run from a node on (absent: the user may not start runs). */
  runFrom?(nodeId: string): void;
  fit(): void;
  tidy(): void;
}

type Open = { x: number; y: number; label: string; items: MenuItem[]; returnFocus: Element | null } | null;

/** The node under keyboard focus (React Flow's focusable wrapper), else the only selected node. */
export function focusedNodeId(): string | null {
  const el = document.activeElement?.closest?.(".react-flow__node") as HTMLElement | null;
  if (el?.dataset.id) return el.dataset.id;
  const sel = useCanvasStore.getState().nodes.filter((n) => n.selected);
  return sel.length === 1 ? sel[0]!.id : null;
}

export function useCanvasMenus(a: MenuActions): {
  openForNodes(ids: string[], x: number, y: number): void;
  openForPane(x: number, y: number): void;
  openFromKeyboard(): void;
  element: ReactNode;
} {
  const [open, setOpen] = useState<Open>(null);
  const flow = useReactFlow();
  const close = useCallback(() => setOpen(null), []);
  const store = useCanvasStore;

  const openForNodes = useCallback(
    (ids: string[], x: number, y: number) => {
      const returnFocus = document.activeElement;
      const s = store.getState();
      // Right-clicking outside the selection acts on that node alone, as in file managers.
      const selected = s.nodes.filter((n) => n.selected).map((n) => n.id);
      const targets = ids.length === 1 && !selected.includes(ids[0]!) ? ids : selected.length ? selected : ids;
      if (targets.join() !== selected.join()) s.select(targets);
      const nodes = s.nodes.filter((n) => targets.includes(n.id));
      const units = nodes.filter(isUnitNode);
      const single = nodes.length === 1 ? nodes[0]! : null;
      const allDisabled = units.length > 0 && units.every((n) => (n.data as FlowNodeData).disabled);
      const ro = a.readOnly;
      const label = single && isUnitNode(single) ? `Actions for ${(single.data as FlowNodeData).name}` : `Actions for ${nodes.length} nodes`;
      const items: MenuItem[] = [];
      if (single && isUnitNode(single)) {
        items.push({ id: "open", label: "Open settings", icon: <Settings2 size={14} />, shortcut: "Enter", onSelect: () => s.select([single.id]) });
        items.push({ id: "connect", label: "Connect to…", icon: <Spline size={14} />, shortcut: "C", disabled: ro, onSelect: () => a.connectFrom(single.id) });
        const runFrom = a.runFrom;
        items.push({
          id: "run-from-here",
          label: "Run from here",
          icon: <Play size={14} />,
          disabled: !runFrom || !!(single.data as FlowNodeData).disabled,
          hint: !runFrom
            ? "Your role cannot start runs."
            : (single.data as FlowNodeData).disabled
              ? "A disabled node does not run."
              : "A test run of the saved version: this node and everything after it, with pinned data or the last run's data before it.",
          onSelect: runFrom ? () => runFrom(single.id) : undefined,
        });
      }
      items.push(
        {
          id: "duplicate",
          label: "Duplicate",
          icon: <CopyPlus size={14} />,
          shortcut: "Mod+D",
          disabled: ro,
          separatorBefore: !!single,
          onSelect: () => warnPinnedLeftOut(s.duplicateSelected()),
        },
        { id: "copy", label: "Copy", icon: <Copy size={14} />, shortcut: "Mod+C", onSelect: () => a.copy() },
      );
      if (units.length) {
        items.push({
          id: "disable",
          label: allDisabled ? "Enable" : "Disable",
          icon: allDisabled ? <Power size={14} /> : <PowerOff size={14} />,
          shortcut: "D",
          disabled: ro,
          hint: allDisabled ? undefined : "Skipped in runs; events pass through to the next nodes.",
          onSelect: () => s.toggleDisabled(units.map((n) => n.id)),
        });
      }
      items.push({
        id: "delete",
        label: "Delete",
        icon: <Trash2 size={14} />,
        shortcut: "Del",
        danger: true,
        disabled: ro,
        separatorBefore: true,
        onSelect: () => s.deleteNodes(targets),
      });
      setOpen({ x, y, label, returnFocus, items: items.map((i) => ({ ...i, shortcut: i.shortcut?.replace("Mod", isMac() ? "⌘" : "Ctrl") })) });
    },
    [a, store],
  );

  const openForPane = useCallback(
    (x: number, y: number) => {
      const s = store.getState();
      const at = flow.screenToFlowPosition({ x, y });
      const ro = a.readOnly;
      const items: MenuItem[] = [
        { id: "paste", label: "Paste here", icon: <ClipboardPaste size={14} />, shortcut: "Mod+V", disabled: ro, onSelect: () => a.paste(at) },
        { id: "note", label: "Add sticky note", icon: <StickyNote size={14} />, disabled: ro, onSelect: () => s.addNote(at) },
        {
          id: "select-all",
          label: "Select all",
          icon: <MousePointerSquareDashed size={14} />,
          shortcut: "Mod+A",
          separatorBefore: true,
          onSelect: () => s.select(s.nodes.map((n) => n.id)),
        },
        { id: "fit", label: "Fit view", icon: <Maximize size={14} />, shortcut: "1", onSelect: a.fit },
        { id: "tidy", label: "Tidy up", icon: <LayoutGrid size={14} />, shortcut: "Shift+T", disabled: ro, onSelect: a.tidy },
      ];
      setOpen({
        x,
        y,
        label: "Canvas actions",
        returnFocus: document.activeElement,
        items: items.map((i) => ({ ...i, shortcut: i.shortcut?.replace("Mod", isMac() ? "⌘" : "Ctrl") })),
      });
    },
    [a, flow, store],
  );

  /** Shift+F10 or the Menu key: the focused node's menu at the node, else the canvas menu in its middle. */
  const openFromKeyboard = useCallback(() => {
    const id = focusedNodeId();
    const el = id ? document.querySelector(`.react-flow__node[data-id="${CSS.escape(id)}"]`) : null;
    if (id && el) {
      const r = el.getBoundingClientRect();
      return openForNodes([id], r.left + 24, r.bottom - 8);
    }
    const box = document.querySelector(".react-flow")?.getBoundingClientRect();
    if (box) openForPane(box.left + box.width / 2, box.top + box.height / 2);
  }, [openForNodes, openForPane]);

  const element = open ? <ContextMenu x={open.x} y={open.y} label={open.label} items={open.items} onClose={close} returnFocus={open.returnFocus} /> : null;
  return { openForNodes, openForPane, openFromKeyboard, element };
}

const isMac = () => typeof navigator !== "undefined" && /Mac/.test(navigator.platform);
