"use client";
/** The toolbar's problem count; opens the list of every problem (node, field, message) and jumps to its node. */
import { AlertTriangle, Info } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useCanvasStore } from "./canvas-store";
import { isUnitNode, isWarning, type FlowNodeData } from "./types";

export function ProblemsButton() {
  const problems = useCanvasStore((s) => s.problems);
  const nodes = useCanvasStore((s) => s.nodes);
  const select = useCanvasStore((s) => s.select);
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => !box.current?.contains(e.target as Node) && setOpen(false);
    document.addEventListener("mousedown", close);
    return () => document.removeEventListener("mousedown", close);
  }, [open]);
  if (!problems.length) return null;
  const errors = problems.filter((p) => !isWarning(p)).length;
  const warnings = problems.length - errors;
  const nameOf = (id?: string) => {
    const n = nodes.find((x) => x.id === id);
    return n && isUnitNode(n) ? (n.data as FlowNodeData).name : null;
  };
  const sorted = [...problems].sort((a, b) => Number(isWarning(a)) - Number(isWarning(b)));
  const label = [errors && `${errors} problem${errors === 1 ? "" : "s"}`, warnings && `${warnings} warning${warnings === 1 ? "" : "s"}`]
    .filter(Boolean)
    .join(", ");
  return (
    <div ref={box} className="relative">
      <button
        type="button"
        className={`badge cursor-pointer ${errors ? "border-red-200 bg-red-50 text-danger" : "border-amber-200 bg-amber-50 text-amber-800"}`}
        data-testid="problem-count"
        aria-expanded={open}
        aria-haspopup="dialog"
        onClick={() => setOpen(!open)}
      >
        {label}
      </button>
      {open && (
        <div
          role="dialog"
          aria-label="Problems"
          data-testid="problems-list"
          className="absolute left-0 z-40 mt-1 max-h-96 w-96 overflow-auto rounded-md border border-border bg-surface p-1 shadow-lg"
        >
          <ul>
            {sorted.map((p, i) => {
              const node = nameOf(p.nodeId);
              const field = p.path.replace(/^config\.?/, "");
              return (
                <li key={i}>
                  <button
                    type="button"
                    className="flex w-full items-start gap-2 rounded px-2 py-1.5 text-left text-xs hover:bg-zinc-100"
                    disabled={!node}
                    onClick={() => {
                      if (p.nodeId) select([p.nodeId]);
                      setOpen(false);
                    }}
                  >
                    {isWarning(p) ? (
                      <Info size={13} className="mt-0.5 shrink-0 text-amber-600" aria-label="Warning" />
                    ) : (
                      <AlertTriangle size={13} className="mt-0.5 shrink-0 text-danger" aria-label="Problem" />
                    )}
                    <span className="min-w-0">
                      {node && (
                        <span className="font-mono font-semibold">
                          {node}
                          {field && <span className="font-normal text-muted"> · {field}</span>}
                        </span>
                      )}
                      <span className="block text-zinc-700">{p.message}</span>
                    </span>
                  </button>
                </li>
              );
            })}
          </ul>
        </div>
      )}
    </div>
  );
}
