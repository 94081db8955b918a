"use client";
/**
 * Palette of triggers and components grouped by integration: searchable; drag onto the canvas or press to add.
 * On a wide screen it can be hidden to a thin rail (remembered in this browser), giving the canvas its width:
 * with the node panel open too, a laptop's canvas was left 420 px wide.
 */
import { ChevronDown, PanelLeftClose, PanelLeftOpen, Search, StickyNote, Zap } from "lucide-react";
import { useMemo, useState } from "react";
import { useCatalog } from "../catalog-context";
import { IntegrationIcon } from "../integration-icon";
import type { PaletteUnit } from "../types";

export const DRAG_MIME = "application/x-conveyor-unit";
const HIDDEN_KEY = "conveyor:palette-hidden";

function readHidden(): boolean {
  try {
    return localStorage.getItem(HIDDEN_KEY) === "1";
  } catch {
    return false;
  }
}

export function BuildingBlocks({
  onAdd,
  onAddNote,
  className = "h-full w-60",
  hideable = false,
}: {
  onAdd: (unit: PaletteUnit) => void;
  onAddNote: () => void;
  className?: string;
  /** Offers "Hide building blocks" (the desktop editor; not the narrow screen's drawer). */
  hideable?: boolean;
}) {
  const [hidden, setHiddenState] = useState(() => hideable && readHidden());
  const setHidden = (v: boolean) => {
    setHiddenState(v);
    try {
      if (v) localStorage.setItem(HIDDEN_KEY, "1");
      else localStorage.removeItem(HIDDEN_KEY);
    } catch {
      /* private mode: not remembered */
    }
  };
  const { integrations, units } = useCatalog();
  const [query, setQuery] = useState("");
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  const groups = useMemo(() => {
    const q = query.trim().toLowerCase();
    return integrations
      .map((i) => ({
        integration: i,
        units: units.filter((u) => u.integration.key === i.key && (!q || `${u.title} ${u.key} ${u.description} ${i.title}`.toLowerCase().includes(q))),
      }))
      .filter((g) => g.units.length);
  }, [integrations, units, query]);

  if (hidden)
    return (
      <aside aria-label="Building blocks" className="flex h-full w-10 shrink-0 flex-col items-center border-r border-border bg-surface py-2 max-md:hidden">
        <button
          type="button"
          className="btn btn-ghost btn-sm px-1.5"
          aria-label="Show building blocks"
          title="Show building blocks"
          onClick={() => setHidden(false)}
        >
          <PanelLeftOpen size={16} aria-hidden />
        </button>
      </aside>
    );
  return (
    <aside aria-label="Building blocks" data-canvas-keys="local" className={`flex shrink-0 flex-col border-r border-border bg-surface ${className}`}>
      <div className="flex items-center gap-1 border-b border-border p-3">
        <label htmlFor="palette-search" className="sr-only">
          Search building blocks
        </label>
        <div className="relative min-w-0 flex-1">
          <Search size={14} className="pointer-events-none absolute top-2.5 left-2.5 text-muted" aria-hidden />
          <input
            id="palette-search"
            data-testid="palette-search"
            className="input pl-8"
            placeholder="Search blocks"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
          />
        </div>
        {hideable && (
          <button
            type="button"
            className="btn btn-ghost btn-sm shrink-0 px-1.5"
            aria-label="Hide building blocks"
            title="Hide building blocks"
            onClick={() => setHidden(true)}
          >
            <PanelLeftClose size={16} aria-hidden />
          </button>
        )}
      </div>
      <div className="flex-1 overflow-y-auto p-2">
        {groups.length === 0 && <p className="px-2 py-4 text-center text-xs text-muted">Nothing matches “{query}”.</p>}
        {groups.map(({ integration, units: list }) => {
          const open = query !== "" || !collapsed.has(integration.key);
          return (
            <section key={integration.key} className="mb-2">
              <button
                type="button"
                aria-expanded={open}
                className="flex w-full items-center gap-2 rounded px-2 py-1 text-left text-xs font-semibold uppercase tracking-wide text-muted hover:bg-zinc-100"
                onClick={() =>
                  setCollapsed((c) => {
                    const n = new Set(c);
                    if (n.has(integration.key)) n.delete(integration.key);
                    else n.add(integration.key);
                    return n;
                  })
                }
              >
                <ChevronDown size={12} className={open ? "" : "-rotate-90"} aria-hidden />
                {integration.title}
                <span className="ml-auto font-normal normal-case">{list.length}</span>
              </button>
              {open && (
                <ul className="mt-1 space-y-0.5">
                  {list.map((u) => (
                    <li key={u.key}>
                      <button
                        type="button"
                        draggable
                        data-testid={`palette-item-${u.key}`}
                        onDragStart={(e) => {
                          e.dataTransfer.setData(DRAG_MIME, u.key);
                          e.dataTransfer.effectAllowed = "move";
                        }}
                        onClick={() => onAdd(u)}
                        title={`${u.description}\nDrag onto the canvas, or press to add (after the selected node, connected).`}
                        className="group flex w-full cursor-grab items-start gap-2 rounded-md px-2 py-1.5 text-left hover:bg-zinc-100 active:cursor-grabbing"
                      >
                        <IntegrationIcon integration={integration.key} icon={integration.icon} unitKey={u.key} size={13} />
                        <span className="min-w-0">
                          <span className="flex items-center gap-1 text-[13px] font-medium">
                            {u.title}
                            {u.kind === "trigger" && <Zap size={11} className="text-amber-500" aria-label="trigger" />}
                          </span>
                          <span className="line-clamp-2 text-[11px] leading-snug text-muted">{u.description}</span>
                        </span>
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </section>
          );
        })}
        <section className="mt-3 border-t border-border pt-2">
          <button
            type="button"
            data-testid="palette-item-note"
            className="flex w-full items-center gap-2 rounded-md px-2 py-1.5 text-left text-[13px] hover:bg-zinc-100"
            onClick={onAddNote}
          >
            <span className="inline-flex h-7 w-7 items-center justify-center rounded-md bg-amber-50 text-amber-600" aria-hidden>
              <StickyNote size={13} />
            </span>
            Sticky note
          </button>
        </section>
      </div>
    </aside>
  );
}
