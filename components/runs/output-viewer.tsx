"use client";
/**
 * A step's emitted envelope in three views: JSON (as stored), a table (records, or one row per
 * field) and the inferred schema. Every value offers "copy its expression" (`{{ $steps.x.data.y }}`,
 * or `$trigger…` for the trigger event), ready to paste into a field of a later step.
 */
import { Link2 } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { copyText, CopyButton } from "@/components/canvas/copy-button";
import { asRecords, expressionPath, inferSchema, jsonLines, leaves, linesText, type Path } from "./json-paths";

type View = "json" | "table" | "schema";

const KIND_STYLE: Record<string, string> = { string: "text-emerald-300", number: "text-sky-300", boolean: "text-amber-300", null: "text-zinc-400" };

function CopyPath({ base, path, dark }: { base: string; path: Path; dark?: boolean }) {
  const expr = `{{ ${expressionPath(base, path)} }}`;
  return (
    <button
      type="button"
      className={`ml-1 inline-flex align-middle opacity-0 group-hover:opacity-100 focus:opacity-100 ${dark ? "text-zinc-400 hover:text-white" : "text-muted hover:text-ink"}`}
      aria-label={`Copy expression ${expr}`}
      title={`Copy ${expr}`}
      data-expression={expr}
      onClick={async () => {
        if (await copyText(expr)) toast.success(`Copied ${expr}`);
        else toast.error("The browser refused clipboard access.");
      }}
    >
      <Link2 size={11} aria-hidden />
    </button>
  );
}

function cell(v: unknown): string {
  if (v === undefined) return "";
  if (v === null) return "null";
  if (typeof v === "object") return Array.isArray(v) ? (v.length ? `[${v.length} items]` : "[]") : Object.keys(v as object).length ? "{…}" : "{}";
  return String(v);
}

export function OutputViewer({ title, value, base, testId }: { title: string; value: unknown; base: string; testId?: string }) {
  const [view, setView] = useState<View>("json");
  if (value === undefined || value === null) {
    return (
      <section aria-label={title}>
        <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-muted">{title}</h3>
        <p className="text-xs text-muted">Nothing.</p>
      </section>
    );
  }
  const lines = jsonLines(value);
  const data = (value as { data?: unknown }).data;
  const records = asRecords(data);
  const views: Array<[View, string]> = [
    ["json", "JSON"],
    ["table", "Table"],
    ["schema", "Schema"],
  ];
  return (
    <section aria-label={title} data-testid={testId ? `${testId}-viewer` : undefined}>
      <div className="mb-1 flex items-center justify-between gap-2">
        <h3 className="text-xs font-semibold uppercase tracking-wide text-muted">{title}</h3>
        <div className="flex items-center gap-1">
          <div role="tablist" aria-label={`${title} view`} className="flex rounded-md border border-border p-0.5">
            {views.map(([id, label]) => (
              <button
                key={id}
                type="button"
                role="tab"
                aria-selected={view === id}
                onClick={() => setView(id)}
                className={`rounded px-2 py-0.5 text-[11px] font-medium ${view === id ? "bg-accent-soft text-accent-strong" : "text-muted hover:text-ink"}`}
              >
                {label}
              </button>
            ))}
          </div>
          <CopyButton text={linesText(lines)} label={`Copy ${title}`} />
        </div>
      </div>
      {view === "json" && (
        <pre className="max-h-96 overflow-auto rounded-md bg-zinc-950 p-3 text-[11px] leading-relaxed text-zinc-100" data-testid={testId}>
          {lines.map((l, i) => (
            <span key={i} className="group">
              {i > 0 && "\n"}
              {"  ".repeat(l.indent)}
              {l.key && <span className="text-violet-300">{l.key}</span>}
              <span className={KIND_STYLE[l.kind] ?? ""}>{l.text}</span>
              {l.comma}
              {l.path && l.path.length > 0 && <CopyPath base={base} path={l.path} dark />}
            </span>
          ))}
        </pre>
      )}
      {view === "table" && (
        <div className="max-h-96 overflow-auto rounded-md border border-border" data-testid={testId ? `${testId}-table` : undefined}>
          {records ? (
            <table className="table text-xs">
              <thead>
                <tr>
                  <th>#</th>
                  {records.columns.map((c) => (
                    <th key={c} className="group whitespace-nowrap">
                      {c}
                      <CopyPath base={base} path={["data", c]} />
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {records.rows.map((r, i) => (
                  <tr key={i}>
                    <td className="text-muted">{i}</td>
                    {records.columns.map((c) => (
                      <td key={c} className="group max-w-48 truncate font-mono" title={cell(r[c])}>
                        {cell(r[c])}
                        <CopyPath base={base} path={["data", i, c]} />
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <table className="table text-xs">
              <thead>
                <tr>
                  <th>Field</th>
                  <th>Value</th>
                </tr>
              </thead>
              <tbody>
                {leaves(value).map((row, i) => (
                  <tr key={i} className="group">
                    <td className="whitespace-nowrap font-mono text-muted">
                      {expressionPath("", row.path).replace(/^\./, "")}
                      <CopyPath base={base} path={row.path} />
                    </td>
                    <td className="max-w-56 truncate font-mono" title={cell(row.value)}>
                      {cell(row.value)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
      {view === "schema" && (
        <ul className="max-h-96 overflow-auto rounded-md border border-border p-2 font-mono text-[11px]" data-testid={testId ? `${testId}-schema` : undefined}>
          {inferSchema(value)
            .filter((n) => n.depth > 0)
            .map((n, i) => (
              <li key={i} className="group flex items-center gap-2" style={{ paddingLeft: (n.depth - 1) * 14 }}>
                <span>{n.key}</span>
                <span className="text-muted">{n.type}</span>
                <CopyPath base={base} path={n.path} />
              </li>
            ))}
        </ul>
      )}
    </section>
  );
}
