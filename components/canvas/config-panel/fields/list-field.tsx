"use client";
/** Ordered lists: rows of objects (silence matchers, responders) or plain strings (tags), with add/remove/reorder. Adding a row focuses its first field. */
import { ArrowDown, ArrowUp, Plus, Trash2 } from "lucide-react";
import { useEffect, useRef, type ReactNode } from "react";

const FOCUSABLE =
  'input:not([disabled]), textarea:not([disabled]), select:not([disabled]), [contenteditable="true"], button[role="switch"], button[aria-haspopup]';

interface ListProps {
  id: string;
  label: string;
  items: unknown[];
  onChange: (items: unknown[]) => void;
  newItem: () => unknown;
  renderItem: (index: number) => ReactNode;
  disabled?: boolean;
  inline?: boolean;
}

/** One item of a list field, named from its label: "Matchers" → "Matcher", "Alert Names" → "Alert Name", "Statuses" → "Status". */
export function singular(label: string): string {
  if (/ies$/.test(label)) return `${label.slice(0, -3)}y`;
  if (/(ss|us|x|ch|sh)es$/.test(label)) return label.slice(0, -2);
  return label.replace(/([^su])s$/, "$1");
}

export function ListField({ id, label: listLabel, items, onChange, newItem, renderItem, disabled, inline }: ListProps) {
  // Rows and their buttons are named after one item: "Matcher 2", "Remove Matcher 2", "Add matcher".
  const label = singular(listLabel);
  const box = useRef<HTMLDivElement>(null);
  const focusRow = useRef<number | null>(null);
  useEffect(() => {
    const i = focusRow.current;
    if (i === null || i >= items.length) return;
    focusRow.current = null;
    box.current?.querySelector(`[data-testid="${id}-row-${i}"]`)?.querySelector<HTMLElement>(FOCUSABLE)?.focus();
  }, [items.length, id]);
  const move = (from: number, to: number) => {
    const next = [...items];
    const [x] = next.splice(from, 1);
    next.splice(to, 0, x);
    onChange(next);
  };
  return (
    <div id={id} ref={box} className="space-y-2">
      {items.length === 0 && <p className="rounded-md border border-dashed border-border px-3 py-2 text-xs text-muted">No items yet.</p>}
      {items.map((_, i) => (
        <div key={i} data-testid={`${id}-row-${i}`} className={inline ? "flex items-start gap-1" : "rounded-md border border-border bg-zinc-50/60 p-2.5"}>
          <div className={inline ? "min-w-0 flex-1" : "mb-1.5 flex items-center justify-between"}>
            {!inline && (
              <span className="text-xs font-medium text-muted">
                {label} {i + 1}
              </span>
            )}
            {inline && renderItem(i)}
            {!inline && <RowActions {...{ i, count: items.length, move, disabled, label }} remove={() => onChange(items.filter((__, j) => j !== i))} />}
          </div>
          {inline ? (
            <RowActions {...{ i, count: items.length, move, disabled, label }} remove={() => onChange(items.filter((__, j) => j !== i))} />
          ) : (
            <div className="space-y-2.5">{renderItem(i)}</div>
          )}
        </div>
      ))}
      <button
        type="button"
        className="btn btn-sm"
        disabled={disabled}
        onClick={() => {
          focusRow.current = items.length;
          onChange([...items, newItem()]);
        }}
      >
        <Plus size={14} aria-hidden /> Add {label.toLowerCase()}
      </button>
    </div>
  );
}

function RowActions({
  i,
  count,
  move,
  remove,
  disabled,
  label,
}: {
  i: number;
  count: number;
  move: (a: number, b: number) => void;
  remove: () => void;
  disabled?: boolean;
  label: string;
}) {
  return (
    <div className="flex shrink-0 gap-0.5">
      <button
        type="button"
        className="btn btn-ghost btn-sm"
        aria-label={`Move ${label} ${i + 1} up`}
        disabled={disabled || i === 0}
        onClick={() => move(i, i - 1)}
      >
        <ArrowUp size={13} />
      </button>
      <button
        type="button"
        className="btn btn-ghost btn-sm"
        aria-label={`Move ${label} ${i + 1} down`}
        disabled={disabled || i === count - 1}
        onClick={() => move(i, i + 1)}
      >
        <ArrowDown size={13} />
      </button>
      <button type="button" className="btn btn-ghost btn-sm text-danger" aria-label={`Remove ${label} ${i + 1}`} disabled={disabled} onClick={remove}>
        <Trash2 size={13} />
      </button>
    </div>
  );
}
