"use client";
/**
 * The node's pinned output (what test runs use instead of calling the node's upstream; production runs
 * never do): shown, edited as JSON, taken from the last run or the latest test, or removed. Pinning
 * changes the document like any edit (undo, Save).
 */
import { Pin, PinOff } from "lucide-react";
import { useState } from "react";
import { jsonBytes, MAX_PINNED_BYTES } from "@/server/contracts/graph";
import { PayloadViewer } from "@/components/runs/payload-viewer";
import { useCanvasStore } from "../canvas-store";
import type { FlowNodeData, PaletteUnit, PinnedData } from "../types";

export interface PinSource {
  label: string;
  output: { type: string; timestamp: string; data?: unknown };
  runId?: string;
}

export function PinEditor({
  nodeId,
  data,
  unit,
  sources,
  readOnly,
}: {
  nodeId: string;
  data: FlowNodeData;
  unit?: PaletteUnit;
  sources: PinSource[];
  readOnly?: boolean;
}) {
  const setPinned = useCanvasStore((s) => s.setPinned);
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const pinned = data.pinned;
  const pin = (p: PinnedData) => {
    const size = jsonBytes(p.output);
    if (size > MAX_PINNED_BYTES) return setError(`That is ${size} bytes; pinned data may be at most ${MAX_PINNED_BYTES} bytes (1 MiB).`);
    setPinned(nodeId, p);
    setError(null);
    setText(null);
  };
  const saveTyped = () => {
    let value: unknown;
    try {
      value = JSON.parse(text ?? "");
    } catch (e) {
      return setError(`Not valid JSON: ${(e as Error).message}`);
    }
    pin({ output: { type: pinned?.output.type ?? unit?.outputType ?? "pinned", timestamp: new Date().toISOString(), data: value } });
  };
  return (
    <section aria-label="Pinned output" className="space-y-2" data-testid="pinned-section">
      <div className="flex items-center justify-between gap-2">
        <h3 className="text-xs font-semibold uppercase tracking-wide text-muted">Pinned output</h3>
        {pinned && text === null && !readOnly && (
          <div className="flex gap-1">
            <button
              type="button"
              className="btn btn-ghost btn-sm"
              onClick={() => setText(JSON.stringify(pinned.output.data ?? null, null, 2))}
              data-testid="pin-edit"
            >
              Edit
            </button>
            <button type="button" className="btn btn-ghost btn-sm" onClick={() => setPinned(nodeId, null)} data-testid="unpin">
              <PinOff size={13} aria-hidden /> Unpin
            </button>
          </div>
        )}
      </div>
      <p className="help">
        Test runs use pinned data instead of calling {data.name}&apos;s upstream, so the steps after it can be built and tested without it. Production runs
        never use it.
      </p>
      {text !== null ? (
        <div className="space-y-2">
          <label htmlFor={`pin-json-${nodeId}`} className="label">
            Output data (JSON): what <code>{`$steps.${data.name}.data`}</code> will be
          </label>
          <textarea
            id={`pin-json-${nodeId}`}
            className="input min-h-40 font-mono text-xs"
            value={text}
            onChange={(e) => setText(e.target.value)}
            aria-invalid={!!error || undefined}
            data-testid="pin-json"
          />
          {error && (
            <p className="field-error" role="alert">
              {error}
            </p>
          )}
          <div className="flex justify-end gap-2">
            <button
              type="button"
              className="btn btn-sm"
              onClick={() => {
                setText(null);
                setError(null);
              }}
            >
              Cancel
            </button>
            <button type="button" className="btn btn-primary btn-sm" onClick={saveTyped} data-testid="pin-save">
              <Pin size={13} aria-hidden /> Pin
            </button>
          </div>
        </div>
      ) : pinned ? (
        <PayloadViewer title={pinned.runId ? `Pinned from run ${pinned.runId}` : "Pinned data"} value={pinned.output.data ?? null} testId="pinned-data" />
      ) : readOnly ? (
        <p className="text-xs text-muted">Nothing pinned.</p>
      ) : (
        <div className="flex flex-wrap gap-1.5">
          {sources.map((s) => (
            <button
              key={s.label}
              type="button"
              className="btn btn-sm"
              onClick={() => pin({ output: s.output, ...(s.runId ? { runId: s.runId } : {}) })}
              data-testid={`pin-from-${s.label.replace(/\W+/g, "-").toLowerCase()}`}
            >
              <Pin size={13} aria-hidden /> Pin {s.label}
            </button>
          ))}
          <button type="button" className="btn btn-sm" onClick={() => setText(JSON.stringify(unit?.example ?? {}, null, 2))} data-testid="pin-type">
            Type JSON…
          </button>
          {error && (
            <p className="field-error w-full" role="alert">
              {error}
            </p>
          )}
        </div>
      )}
    </section>
  );
}
