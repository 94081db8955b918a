"use client";
/**
 * Top bar: back link, automation name, dirty/saved state, enable switch, history, undo/redo, tidy, run, save.
 * On narrow screens the secondary buttons move into a "more" menu and an "add node" button opens the palette.
 */
import Link from "next/link";
import { useRouter } from "next/navigation";
import { ArrowLeft, History, Keyboard, LayoutGrid, ListChecks, Loader2, MoreHorizontal, Play, Plus, Redo2, Save, Undo2 } from "lucide-react";
import { useState } from "react";
import { useCanvasStore } from "./canvas-store";
import { ProblemsButton } from "./problems-list";
import { ContextMenu } from "./context-menu";

export interface ToolbarProps {
  backHref: string;
  runsHref: string;
  name: string;
  onName: (v: string) => void;
  enabled: boolean;
  onEnabled: (v: boolean) => void;
  dirty: boolean;
  saving: boolean;
  version: number;
  problems: number;
  canRun: boolean;
  onRun: () => void;
  onSave: () => void;
  onTidy: () => void;
  onHistory: () => void;
  onHelp: () => void;
  /** Narrow screens: opens the palette drawer. */
  onOpenPalette?: () => void;
  readOnly?: boolean;
}

export function EditorToolbar(p: ToolbarProps) {
  const canUndo = useCanvasStore((s) => s.past.length > 0);
  const canRedo = useCanvasStore((s) => s.future.length > 0);
  const undo = useCanvasStore((s) => s.undo);
  const redo = useCanvasStore((s) => s.redo);
  const router = useRouter();
  const [more, setMore] = useState<{ x: number; y: number } | null>(null);
  return (
    <header className="flex h-13 shrink-0 items-center gap-1.5 border-b border-border bg-surface px-2 md:gap-2 md:px-3">
      <Link href={p.backHref} className="btn btn-ghost btn-sm" aria-label="Back to automations">
        <ArrowLeft size={16} />
      </Link>
      {p.onOpenPalette && !p.readOnly && (
        <button type="button" className="btn btn-sm md:hidden" aria-label="Add a node" data-testid="open-palette" onClick={p.onOpenPalette}>
          <Plus size={15} aria-hidden />
        </button>
      )}
      <label htmlFor="automation-name" className="sr-only">
        Automation name
      </label>
      <input
        id="automation-name"
        data-testid="automation-name"
        className="w-0 min-w-0 max-w-md flex-1 rounded-md border border-transparent bg-transparent px-2 py-1 text-[15px] font-semibold hover:border-border focus:border-accent focus:outline-none"
        value={p.name}
        disabled={p.readOnly}
        onChange={(e) => p.onName(e.target.value)}
      />
      <span className="text-xs text-muted" data-testid="save-state" aria-live="polite">
        {p.saving ? (
          <span className="inline-flex items-center gap-1">
            <Loader2 size={12} className="animate-spin" /> Saving…
          </span>
        ) : p.dirty ? (
          <span className="inline-flex items-center gap-1.5 font-medium text-amber-700" title="Unsaved changes">
            <span className="h-2 w-2 rounded-full bg-amber-500" aria-hidden /> <span className="max-md:sr-only">Unsaved changes</span>
          </span>
        ) : (
          <span className="max-md:sr-only">Saved · v{p.version}</span>
        )}
      </span>
      {p.problems > 0 && <ProblemsButton />}
      <div className="ml-auto flex shrink-0 items-center gap-1">
        <label className="inline-flex cursor-pointer items-center gap-2 text-xs font-medium text-zinc-700 md:mr-2">
          <button
            type="button"
            role="switch"
            aria-checked={p.enabled}
            aria-label="Enabled"
            data-testid="enabled-switch"
            disabled={p.readOnly}
            onClick={() => p.onEnabled(!p.enabled)}
            className={`relative inline-flex h-5 w-9 items-center rounded-full transition-colors ${p.enabled ? "bg-success" : "bg-zinc-300"}`}
          >
            <span className={`inline-block h-4 w-4 rounded-full bg-white shadow transition-transform ${p.enabled ? "translate-x-4" : "translate-x-0.5"}`} />
          </button>
          <span className="max-md:sr-only">{p.enabled ? "Enabled" : "Disabled"}</span>
        </label>
        <div className="flex items-center gap-1 max-md:hidden">
          <IconButton label="Undo (Ctrl+Z)" onClick={undo} disabled={!canUndo || p.readOnly} testId="undo">
            <Undo2 size={15} />
          </IconButton>
          <IconButton label="Redo (Ctrl+Shift+Z)" onClick={redo} disabled={!canRedo || p.readOnly} testId="redo">
            <Redo2 size={15} />
          </IconButton>
          <IconButton label="Tidy up (Shift+T)" onClick={p.onTidy} disabled={p.readOnly} testId="tidy">
            <LayoutGrid size={15} />
          </IconButton>
          <IconButton label="Version history" onClick={p.onHistory} testId="history">
            <History size={15} />
          </IconButton>
          <IconButton label="Keyboard shortcuts (?)" onClick={p.onHelp} testId="help">
            <Keyboard size={15} />
          </IconButton>
          <Link href={p.runsHref} className="btn btn-sm" data-testid="runs-link">
            <ListChecks size={14} aria-hidden /> Runs
          </Link>
          {p.canRun && (
            <button type="button" className="btn btn-sm" onClick={p.onRun} data-testid="run-now">
              <Play size={14} aria-hidden /> Run
            </button>
          )}
        </div>
        <button
          type="button"
          className="btn btn-ghost btn-sm md:hidden"
          aria-label="More actions"
          aria-haspopup="menu"
          aria-expanded={!!more}
          data-testid="toolbar-more"
          onClick={(e) => {
            const r = e.currentTarget.getBoundingClientRect();
            setMore(more ? null : { x: r.right - 210, y: r.bottom + 4 });
          }}
        >
          <MoreHorizontal size={16} />
        </button>
        {more && (
          <ContextMenu
            x={more.x}
            y={more.y}
            label="More actions"
            onClose={() => setMore(null)}
            items={[
              ...(p.canRun ? [{ id: "run", label: "Run", icon: <Play size={14} />, onSelect: p.onRun }] : []),
              { id: "undo", label: "Undo", icon: <Undo2 size={14} />, disabled: !canUndo || p.readOnly, onSelect: undo },
              { id: "redo", label: "Redo", icon: <Redo2 size={14} />, disabled: !canRedo || p.readOnly, onSelect: redo },
              { id: "tidy", label: "Tidy up", icon: <LayoutGrid size={14} />, disabled: p.readOnly, onSelect: p.onTidy },
              { id: "history", label: "Version history", icon: <History size={14} />, onSelect: p.onHistory },
              { id: "runs", label: "Runs", icon: <ListChecks size={14} />, onSelect: () => router.push(p.runsHref) },
              { id: "help", label: "Keyboard shortcuts", icon: <Keyboard size={14} />, onSelect: p.onHelp },
            ]}
          />
        )}
        <button type="button" className="btn btn-primary btn-sm" onClick={p.onSave} disabled={p.saving || p.readOnly} data-testid="save" title="Save (Ctrl+S)">
          <Save size={14} aria-hidden /> Save
        </button>
      </div>
    </header>
  );
}

function IconButton({
  label,
  onClick,
  disabled,
  testId,
  children,
}: {
  label: string;
  onClick: () => void;
  disabled?: boolean;
  testId: string;
  children: React.ReactNode;
}) {
  return (
    <button type="button" className="btn btn-ghost btn-sm" aria-label={label} title={label} onClick={onClick} disabled={disabled} data-testid={testId}>
      {children}
    </button>
  );
}
