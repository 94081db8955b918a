"use client";
/**
 * One generic node for every catalog entry (trigger or component): icon, name, what it is, a one-line
 * config summary, a problem badge (server validation) and, in the run view, the step's status.
 */
import { Handle, Position, useStore, type NodeProps, type ReactFlowState } from "@xyflow/react";
import { AlertTriangle, Pin, PowerOff, Zap } from "lucide-react";
import { createContext, memo, useContext, useState } from "react";
import { toast } from "sonner";
import { useCanvasStore } from "../canvas-store";
import { problemsByNode } from "../canvas-problems";
import { useCatalog } from "../catalog-context";
import { LOD_ZOOM, NODE_H, nodeLabelId, summarize } from "../graph-utils";
import { IntegrationIcon } from "../integration-icon";
import type { FlowNode, FlowNodeData } from "../types";
import { NodeRunStatus, STATUS_STYLE, type StepStatus } from "./node-run-status";
import { NodeFailureMark } from "./node-failure-mark";
import { LastFailureContext } from "../use-last-failure";

/** Zoomed far out, where node text would be a few pixels high (see LOD_ZOOM). */
const farSelector = (s: ReactFlowState) => s.transform[2] < LOD_ZOOM;

/** "edit": problems from the editor store; "run": statuses from the run being viewed. */
export const CanvasModeContext = createContext<{ mode: "edit" | "run"; statuses?: Record<string, StepStatus> }>({ mode: "edit" });

function UnitNodeView({ id, data, selected, type }: NodeProps<FlowNode> & { data: FlowNodeData }) {
  const { byKey } = useCatalog();
  const mode = useContext(CanvasModeContext);
  // O(1) per node and store update (an index built once per problems list), not a scan of every problem.
  const problemCount = useCanvasStore((s) => (mode.mode === "edit" ? (problemsByNode(s.problems).get(id)?.count ?? 0) : 0));
  const onlyWarnings = useCanvasStore((s) => mode.mode === "edit" && (problemsByNode(s.problems).get(id)?.onlyWarnings ?? true));
  const renameNode = useCanvasStore((s) => s.renameNode);
  const far = useStore(farSelector);
  const [editing, setEditing] = useState<string | null>(null);
  const commit = () => {
    if (editing === null) return;
    const r = renameNode(id, editing);
    if (!r.ok && r.reason) toast.error(r.reason);
    setEditing(null);
  };
  const unit = byKey.get(data.key);
  const status = mode.statuses?.[id];
  // Editor only: this node's step failed in the automation's latest production run (use-last-failure.ts).
  const lastFailure = useContext(LastFailureContext);
  const failure = mode.mode === "edit" && lastFailure?.nodeId === id ? lastFailure : null;
  const isTrigger = type === "trigger";
  const title = unit?.title ?? data.key;
  const disabled = !!data.disabled;
  // Pinned data only matters to test runs from the editor: the run view of a production run does not show it.
  const pinned = mode.mode === "edit" && !!data.pinned;
  const label = `${title} node, ${data.name}${disabled ? ", disabled" : ""}${pinned ? ", output pinned" : ""}${problemCount ? `, ${problemCount} problem${problemCount === 1 ? "" : "s"}` : ""}${status ? `, ${STATUS_STYLE[status].label}` : ""}${failure ? ", failed in the latest production run" : ""}`;
  if (far) {
    // A plain box of the same size with the same handles and accessible name: a thousand of these render,
    // lay out and paint in a fraction of the full nodes' time (docs/editor-bench.md).
    return (
      <div
        data-node-key={data.key}
        data-node-name={data.name}
        data-disabled={disabled || undefined}
        data-far
        style={{ height: NODE_H }}
        className={`relative w-60 rounded-lg border-2 bg-surface ${selected ? "border-accent" : problemCount ? (onlyWarnings ? "border-amber-500" : "border-danger") : "border-border"} ${status ? `ring-4 ${STATUS_STYLE[status].ring}` : ""} ${disabled ? "border-dashed opacity-60" : ""}`}
      >
        <span id={nodeLabelId(id)} className="sr-only">
          {label}
        </span>
        {!isTrigger && (
          <Handle type="target" position={Position.Left} className="!h-3 !w-3 !border-2 !border-surface !bg-zinc-400" aria-label={`Input of ${data.name}`} />
        )}
        <Handle type="source" position={Position.Right} className="!h-3 !w-3 !border-2 !border-surface !bg-accent" aria-label={`Output of ${data.name}`} />
      </div>
    );
  }
  const summary = summarize(data.config, 48, data.labels);
  return (
    <div
      data-node-key={data.key}
      data-node-name={data.name}
      data-disabled={disabled || undefined}
      // Exactly the size React Flow is told (unitNodeFrame in graph-utils.ts): it never measures unit nodes.
      style={{ height: NODE_H }}
      className={`relative w-60 rounded-lg border bg-surface text-left shadow-sm transition-shadow ${selected ? "border-accent ring-2 ring-accent/25" : "border-border hover:shadow-md"} ${status ? `ring-2 ${STATUS_STYLE[status].ring}` : ""} ${disabled ? "border-dashed" : ""}`}
    >
      {/* React Flow's focusable wrapper is labelled by this (graph-utils unitNodeA11y). */}
      <span id={nodeLabelId(id)} className="sr-only">
        {label}
      </span>
      {!isTrigger && (
        <Handle type="target" position={Position.Left} className="!h-3 !w-3 !border-2 !border-surface !bg-zinc-400" aria-label={`Input of ${data.name}`} />
      )}
      <div className={disabled ? "opacity-45 grayscale" : undefined}>
        <div className="flex items-center gap-2.5 px-3 pt-2.5 pb-1.5">
          <IntegrationIcon integration={unit?.integration.key ?? data.key.split(".")[0]} icon={unit?.integration.icon} unitKey={data.key} />
          <div className="min-w-0 flex-1">
            {editing !== null ? (
              <input
                autoFocus
                aria-label="Node name"
                className="nodrag w-full rounded border border-accent px-1 font-mono text-[12px] outline-none"
                value={editing}
                onChange={(e) => setEditing(e.target.value)}
                onBlur={commit}
                onKeyDown={(e) => {
                  e.stopPropagation();
                  if (e.key === "Enter") commit();
                  if (e.key === "Escape") setEditing(null);
                }}
              />
            ) : (
              <div
                className="truncate text-[13px] font-semibold leading-tight"
                title={`${data.name} (double-click to rename)`}
                onDoubleClick={(e) => {
                  if (mode.mode !== "edit") return;
                  e.stopPropagation();
                  setEditing(data.name);
                }}
              >
                {data.name}
              </div>
            )}
            <div className="flex items-center gap-1 truncate text-[11px] text-muted">
              {isTrigger && <Zap size={10} className="text-amber-500" aria-label="Trigger" />}
              {title}
            </div>
          </div>
        </div>
        <div className="truncate border-t border-zinc-100 px-3 py-1.5 font-mono text-[11px] text-zinc-500" title={summary}>
          {summary || (
            <span className="font-sans italic text-zinc-400">
              {!unit ? "Unknown component" : Object.keys(unit.config.properties ?? {}).length ? "Not configured" : "No settings needed"}
            </span>
          )}
        </div>
      </div>
      {disabled && (
        <span
          className="absolute -top-2.5 left-3 inline-flex items-center gap-1 rounded-full border border-border bg-surface px-1.5 py-px text-[10px] font-medium text-muted shadow-xs"
          data-testid="node-disabled"
          aria-hidden
        >
          <PowerOff size={10} /> Disabled
        </span>
      )}
      {pinned && (
        <span
          className="absolute -top-2.5 right-7 inline-flex items-center gap-1 rounded-full border border-violet-300 bg-violet-50 px-1.5 py-px text-[10px] font-medium text-violet-800 shadow-xs"
          data-testid="node-pinned"
          title="Output pinned: test runs use it instead of calling this node's upstream (production runs never do)"
          aria-hidden
        >
          <Pin size={10} /> Pinned
        </span>
      )}
      {problemCount > 0 && (
        <span
          className={`absolute -top-2 -right-2 inline-flex items-center gap-0.5 rounded-full px-1.5 py-0.5 text-[10px] font-semibold text-white shadow ${onlyWarnings ? "bg-amber-500" : "bg-danger"}`}
          data-testid="node-problems"
          data-severity={onlyWarnings ? "warning" : "error"}
          title={`${problemCount} ${onlyWarnings ? "warning" : "problem"}(s)`}
        >
          <AlertTriangle size={10} aria-hidden /> {problemCount}
        </span>
      )}
      {status && <NodeRunStatus status={status} />}
      {failure && <NodeFailureMark failure={failure} />}
      <Handle type="source" position={Position.Right} className="!h-3 !w-3 !border-2 !border-surface !bg-accent" aria-label={`Output of ${data.name}`} />
    </div>
  );
}

/**
 * React Flow also passes the node's position, size, z-index and drag state, which change on every
 * measurement and drag frame; the view reads none of them, so only these props re-render it.
 */
const sameView = (a: NodeProps<FlowNode>, b: NodeProps<FlowNode>) => a.id === b.id && a.type === b.type && a.data === b.data && a.selected === b.selected;
export const UnitNode = memo(UnitNodeView, sameView);
