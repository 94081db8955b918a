"use client";
/** Run by hand: optional JSON payload for the manual trigger's event. */
import { Play } from "lucide-react";
import { useState } from "react";
import { Dialog } from "./dialog";

export function RunDialog({ open, onClose, onStart, busy }: { open: boolean; onClose: () => void; onStart: (payload: unknown) => void; busy?: boolean }) {
  const [text, setText] = useState("{}");
  const [error, setError] = useState<string | null>(null);
  return (
    <Dialog open={open} onClose={onClose} title="Run by hand">
      <form
        className="space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          try {
            const payload = text.trim() ? JSON.parse(text) : {};
            setError(null);
            onStart(payload);
          } catch (err) {
            setError(`Not valid JSON: ${(err as Error).message}`);
          }
        }}
      >
        <div>
          <label htmlFor="run-payload" className="label">
            Event data (JSON)
          </label>
          <textarea
            id="run-payload"
            className="input min-h-32 font-mono text-xs"
            value={text}
            onChange={(e) => setText(e.target.value)}
            aria-invalid={!!error || undefined}
            aria-describedby="run-payload-help"
          />
          {error ? (
            <p className="field-error" role="alert">
              {error}
            </p>
          ) : (
            <p id="run-payload-help" className="help">
              Available to expressions as <code>$trigger.data</code>. The saved version runs.
            </p>
          )}
        </div>
        <div className="flex justify-end gap-2">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button className="btn btn-primary" disabled={busy} data-testid="start-run">
            <Play size={14} aria-hidden /> Start run
          </button>
        </div>
      </form>
    </Dialog>
  );
}
