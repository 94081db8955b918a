"use client";
/**
 * Connecting two nodes without a mouse: from the focused (or selected) node, choose whether its output goes
 * to another node or its input comes from one, filter the list, move with the arrow keys, Enter to connect.
 * The same rules as dragging apply (store.connect): only components receive events, no duplicates, no loops.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { toast } from "sonner";
import { useCanvasStore } from "./canvas-store";
import { useCatalog } from "./catalog-context";
import { Dialog } from "./dialog";
import { wouldCycle } from "./graph-utils";
import { takeTypeAhead } from "./type-ahead";
import { isUnitNode, type FlowNodeData } from "./types";

type Direction = "to" | "from";

export function ConnectDialog({ nodeId, onClose }: { nodeId: string | null; onClose: () => void }) {
  const node = useCanvasStore((s) => (nodeId ? s.nodes.find((n) => n.id === nodeId) : undefined));
  const open = !!node && isUnitNode(node);
  const name = open ? (node.data as FlowNodeData).name : "";
  // Nothing to connect (not a unit node): stop keeping the keys typed after C.
  useEffect(() => {
    if (!open) takeTypeAhead();
  }, [open]);
  return (
    <Dialog open={open} onClose={onClose} title={`Connect ${name}`}>
      {open && <ConnectList nodeId={node.id} canReceive={node.type === "component"} onClose={onClose} />}
    </Dialog>
  );
}

function ConnectList({ nodeId, canReceive, onClose }: { nodeId: string; canReceive: boolean; onClose: () => void }) {
  const nodes = useCanvasStore((s) => s.nodes);
  const edges = useCanvasStore((s) => s.edges);
  const connect = useCanvasStore((s) => s.connect);
  const { byKey } = useCatalog();
  const [direction, setDirection] = useState<Direction>("to");
  // Letters typed between C and now (while this dialog's code loaded) start the filter.
  const [query, setQuery] = useState(takeTypeAhead);
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  // showModal (the Dialog's effect, after this one) focuses the element marked autofocus: the search box,
  // in the same task as the C that opened it, so letters typed right after C land in it. (React's
  // autoFocus prop focuses on mount without the attribute, and showModal then moved focus to the first
  // button: the next frame's focus lost what was typed in between, "filter" became "lter".)
  useLayoutEffect(() => input.current?.setAttribute("autofocus", ""), []);
  useEffect(() => {
    const t = requestAnimationFrame(() => {
      if (document.activeElement !== input.current) input.current?.focus();
    });
    return () => cancelAnimationFrame(t);
  }, []);

  const options = useMemo(() => {
    const q = query.trim().toLowerCase();
    return nodes
      .filter(isUnitNode)
      .filter((n) => n.id !== nodeId)
      .filter((n) => {
        const [from, to] = direction === "to" ? [nodeId, n.id] : [n.id, nodeId];
        const target = direction === "to" ? n : undefined;
        if (target && target.type !== "component") return false;
        if (edges.some((e) => e.source === from && e.target === to)) return false;
        return !wouldCycle(from, to, edges);
      })
      .map((n) => {
        const d = n.data as FlowNodeData;
        return { id: n.id, name: d.name, title: byKey.get(d.key)?.title ?? d.key };
      })
      .filter((o) => !q || `${o.name} ${o.title}`.toLowerCase().includes(q));
  }, [nodes, edges, nodeId, direction, query, byKey]);
  const current = options[Math.min(active, options.length - 1)];

  const choose = (targetId: string | undefined) => {
    if (!targetId) return;
    const r =
      direction === "to"
        ? connect({ source: nodeId, target: targetId, sourceHandle: null, targetHandle: null })
        : connect({ source: targetId, target: nodeId, sourceHandle: null, targetHandle: null });
    if (!r.ok) return void (r.reason && toast.error(r.reason));
    const other = options.find((o) => o.id === targetId)?.name;
    toast.success(direction === "to" ? `Connected to ${other}` : `Connected from ${other}`);
    onClose();
  };

  return (
    <div className="space-y-3">
      <div role="radiogroup" aria-label="Direction" className="inline-flex rounded-md border border-border p-0.5 text-xs">
        {(["to", "from"] as const).map((d) => (
          <button
            key={d}
            type="button"
            role="radio"
            aria-checked={direction === d}
            disabled={d === "from" && !canReceive}
            data-testid={`connect-direction-${d}`}
            onClick={() => {
              setDirection(d);
              setActive(0);
            }}
            className={`rounded px-2.5 py-1 disabled:opacity-40 ${direction === d ? "bg-accent-soft font-medium text-accent-strong" : "text-muted"}`}
          >
            {d === "to" ? "Send output to…" : "Take input from…"}
          </button>
        ))}
      </div>
      <input
        ref={input}
        role="combobox"
        aria-expanded="true"
        aria-controls="connect-options"
        aria-activedescendant={current ? `connect-opt-${current.id}` : undefined}
        aria-label={direction === "to" ? "Node to send the output to" : "Node to take the input from"}
        data-testid="connect-search"
        className="input"
        placeholder="Filter nodes"
        value={query}
        onChange={(e) => {
          setQuery(e.target.value);
          setActive(0);
        }}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown") return (e.preventDefault(), setActive((i) => Math.min(i + 1, options.length - 1)));
          if (e.key === "ArrowUp") return (e.preventDefault(), setActive((i) => Math.max(i - 1, 0)));
          if (e.key === "Enter") return (e.preventDefault(), choose(current?.id));
        }}
      />
      <ul id="connect-options" role="listbox" aria-label="Nodes" className="max-h-64 overflow-y-auto rounded-md border border-border">
        {options.length === 0 && <li className="px-3 py-2 text-xs text-muted">No node can be connected {direction === "to" ? "to" : "from"} here.</li>}
        {options.map((o, i) => (
          <li
            key={o.id}
            id={`connect-opt-${o.id}`}
            role="option"
            aria-selected={o === current}
            data-testid={`connect-option-${o.name}`}
            onPointerEnter={() => setActive(i)}
            onClick={() => choose(o.id)}
            className={`flex cursor-default items-baseline gap-2 px-3 py-1.5 text-sm ${o === current ? "bg-accent-soft" : ""}`}
          >
            <span className="font-mono text-[13px]">{o.name}</span>
            <span className="text-xs text-muted">{o.title}</span>
          </li>
        ))}
      </ul>
      <p className="text-xs text-muted">↑ ↓ to choose, Enter to connect, Esc to cancel.</p>
    </div>
  );
}
