"use client";
/**
 * Options loaded from the node's connection (projects, issue types, silences…): searchable, paginated,
 * dependent (disabled until the fields in `dependsOn` have values; reloads when they change).
 * The label of the chosen option is stored next to the value (node `labels`), so a reopened node
 * shows "Bug" rather than `10002` without asking the upstream.
 */
import { useInfiniteQuery } from "@tanstack/react-query";
import { Check, ChevronDown, Loader2, RefreshCw } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { useFormEnv } from "../form-context";
import { humanize } from "../schema-utils";

interface Props {
  id: string;
  /** Config path of the field (where its label is kept). */
  path?: string;
  resource: { type: string; dependsOn?: string[]; allowCustom?: boolean };
  value: unknown;
  onChange: (v: unknown) => void;
  describedBy?: string;
  invalid?: boolean;
}

export function ResourcePicker({ id, path, resource, value, onChange, describedBy, invalid }: Props) {
  const env = useFormEnv();
  const [open, setOpen] = useState(false);
  const [search, setSearch] = useState("");
  const [debounced, setDebounced] = useState("");
  const listId = useId();
  const boxRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(search), 250);
    return () => clearTimeout(t);
  }, [search]);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => !boxRef.current?.contains(e.target as Node) && setOpen(false);
    document.addEventListener("mousedown", close);
    return () => document.removeEventListener("mousedown", close);
  }, [open]);

  const deps = Object.fromEntries((resource.dependsOn ?? []).map((k) => [k, env.config[k]]));
  const missing = (resource.dependsOn ?? []).filter((k) => deps[k] === undefined || deps[k] === "");
  const current = value === undefined || value === null ? "" : String(value);
  const stored = path ? env.labels?.[path] : undefined;
  // A chosen value is shown by its label (a team's name, not its id): the label stored with the value,
  // else the options are loaded for it.
  const labelWanted = current !== "" && !current.includes("{{") && !(stored && stored.value === current);
  const enabled = (open || labelWanted) && !!env.loadResources && missing.length === 0;
  const query = useInfiniteQuery({
    queryKey: ["resource", env.idPrefix, resource.type, deps, debounced],
    enabled,
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => env.loadResources!({ type: resource.type, config: env.config, search: debounced || undefined, cursor: pageParam }),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    staleTime: 30_000,
  });
  const options = query.data?.pages.flatMap((p) => p.options) ?? [];
  const currentLabel = options.find((o) => o.value === current)?.label ?? (stored && stored.value === current ? stored.label : undefined);
  const choose = (v: string, label: string | null) => {
    if (path) env.setLabel?.(path, label === null ? null : { value: v, label });
    onChange(v);
    setOpen(false);
    setSearch(""); // the closed picker shows the chosen option's label from the unfiltered list
  };

  if (missing.length) {
    return (
      <button id={id} type="button" className="input text-left text-zinc-400" disabled aria-describedby={describedBy}>
        Choose {missing.map(humanize).join(", ").toLowerCase()} first
      </button>
    );
  }
  return (
    <div ref={boxRef} className="relative">
      <button
        id={id}
        type="button"
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-controls={listId}
        aria-describedby={describedBy}
        data-invalid={invalid || undefined}
        className="input flex items-center justify-between text-left"
        onClick={() => setOpen(!open)}
      >
        <span
          className={current ? "truncate" : "text-zinc-400"}
          data-testid={`picked-${id}`}
          title={currentLabel && currentLabel !== current ? current : undefined}
        >
          {current ? (currentLabel ?? current) : "Choose…"}
        </span>
        <ChevronDown size={14} className="shrink-0 text-muted" aria-hidden />
      </button>
      {open && (
        <div className="absolute z-30 mt-1 w-full rounded-md border border-border bg-surface p-1 shadow-lg">
          <input
            autoFocus
            className="input mb-1"
            aria-label="Search options"
            placeholder={resource.allowCustom ? "Search, or type a value / {{ expression }}" : "Search…"}
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Escape") setOpen(false);
              if (e.key === "Enter" && resource.allowCustom && search) choose(search, null);
            }}
          />
          <ul id={listId} role="listbox" aria-label="Options" className="max-h-56 overflow-auto">
            {query.isLoading && (
              <li className="flex items-center gap-2 px-2 py-1.5 text-xs text-muted">
                <Loader2 size={12} className="animate-spin" /> Loading…
              </li>
            )}
            {query.isError && (
              <li className="px-2 py-1.5 text-xs text-danger">
                {(query.error as Error).message}{" "}
                <button type="button" className="underline" onClick={() => query.refetch()}>
                  <RefreshCw size={11} className="inline" /> Retry
                </button>
              </li>
            )}
            {!query.isLoading && !query.isError && options.length === 0 && <li className="px-2 py-1.5 text-xs text-muted">No matches.</li>}
            {options.map((o) => (
              <li key={o.value} role="option" aria-selected={o.value === current}>
                <button
                  type="button"
                  className="flex w-full items-start gap-2 rounded px-2 py-1.5 text-left text-sm hover:bg-zinc-100 focus:bg-zinc-100"
                  onClick={() => choose(o.value, o.label)}
                >
                  <Check size={13} className={`mt-0.5 shrink-0 ${o.value === current ? "text-accent" : "invisible"}`} aria-hidden />
                  <span className="min-w-0">
                    <span className="block truncate">{o.label}</span>
                    {o.description && <span className="block truncate text-xs text-muted">{o.description}</span>}
                  </span>
                </button>
              </li>
            ))}
            {query.hasNextPage && (
              <li>
                <button type="button" className="w-full rounded px-2 py-1.5 text-xs text-accent hover:bg-zinc-100" onClick={() => query.fetchNextPage()}>
                  {query.isFetchingNextPage ? "Loading…" : "Load more"}
                </button>
              </li>
            )}
          </ul>
        </div>
      )}
    </div>
  );
}
