"use client";
/** String maps (labels, headers) edited as key/value rows. Order is kept while editing. */
import { Plus, Trash2 } from "lucide-react";
import { useState } from "react";

export function KeyValueField({
  id,
  value,
  onChange,
  disabled,
}: {
  id: string;
  value: unknown;
  onChange: (v: Record<string, string>) => void;
  disabled?: boolean;
}) {
  const obj = value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, string>) : {};
  const [rows, setRows] = useState<Array<[string, string]>>(() => Object.entries(obj).map(([k, v]) => [k, String(v)]));
  const emit = (next: Array<[string, string]>) => {
    setRows(next);
    onChange(Object.fromEntries(next.filter(([k]) => k.trim() !== "")));
  };
  return (
    <div id={id} className="space-y-1.5">
      {rows.map(([k, v], i) => (
        <div key={i} className="flex gap-1">
          <input
            className="input"
            aria-label={`Key ${i + 1}`}
            placeholder="key"
            value={k}
            disabled={disabled}
            onChange={(e) => emit(rows.map((r, j) => (j === i ? [e.target.value, r[1]] : r)))}
          />
          <input
            className="input"
            aria-label={`Value ${i + 1}`}
            placeholder="value"
            value={v}
            disabled={disabled}
            onChange={(e) => emit(rows.map((r, j) => (j === i ? [r[0], e.target.value] : r)))}
          />
          <button
            type="button"
            className="btn btn-ghost btn-sm text-danger"
            aria-label={`Remove entry ${i + 1}`}
            onClick={() => emit(rows.filter((_, j) => j !== i))}
          >
            <Trash2 size={13} />
          </button>
        </div>
      ))}
      <button type="button" className="btn btn-sm" disabled={disabled} onClick={() => setRows([...rows, ["", ""]])}>
        <Plus size={14} aria-hidden /> Add entry
      </button>
    </div>
  );
}
