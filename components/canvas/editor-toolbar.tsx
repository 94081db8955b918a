"use client";
/** Top bar: back link, automation name, dirty/saved state, enable switch, history, undo/redo, tidy, run, save. */
import Link from "next/link";
import { ArrowLeft, History, Keyboard, LayoutGrid, ListChecks, Loader2, Play, Redo2, Save, Undo2 } from "lucide-react";
import { useCanvasStore } from "./canvas-store";
import { ProblemsButton } from "./problems-list";

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
  readOnly?: boolean;
}

export function EditorToolbar(p: ToolbarProps) {
  const canUndo = useCanvasStore((s) => s.past.length > 0);
  const canRedo = useCanvasStore((s) => s.future.length > 0);
  const undo = useCanvasStore((s) => s.undo);
  const redo = useCanvasStore((s) => s.redo);
  return (
    <header className="flex h-13 shrink-0 items-center gap-2 border-b border-border bg-surface px-3">
      <Link href={p.backHref} className="btn btn-ghost btn-sm" aria-label="Back to automations">
        <ArrowLeft size={16} />
      </Link>
      <label htmlFor="automation-name" className="sr-only">Automation name</label>
      <input
        id="automation-name"
        data-testid="automation-name"
        className="min-w-0 max-w-md flex-1 rounded-md border border-transparent bg-transparent px-2 py-1 text-[15px] font-semibold hover:border-border focus:border-accent focus:outline-none"
        value={p.name}
        disabled={p.readOnly}
        onChange={(e) => p.onName(e.target.value)}
      />
      <span className="text-xs text-muted" data-testid="save-state" aria-live="polite">
        {p.saving ? (
          <span className="inline-flex items-center gap-1"><Loader2 size={12} className="animate-spin" /> Saving…</span>
        ) : p.dirty ? (
          <span className="inline-flex items-center gap-1.5 font-medium text-amber-700"><span className="h-2 w-2 rounded-full bg-amber-500" aria-hidden /> Unsaved changes</span>
        ) : (
          <>Saved · v{p.version}</>
        )}
      </span>
      {p.problems > 0 && <ProblemsButton />}
      <div className="ml-auto flex items-center gap-1">
        <label className="mr-2 inline-flex cursor-pointer items-center gap-2 text-xs font-medium text-zinc-700">
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
          {p.enabled ? "Enabled" : "Disabled"}
        </label>
        <IconButton label="Undo (Ctrl+Z)" onClick={undo} disabled={!canUndo || p.readOnly} testId="undo"><Undo2 size={15} /></IconButton>
        <IconButton label="Redo (Ctrl+Shift+Z)" onClick={redo} disabled={!canRedo || p.readOnly} testId="redo"><Redo2 size={15} /></IconButton>
        <IconButton label="Tidy up (Shift+T)" onClick={p.onTidy} disabled={p.readOnly} testId="tidy"><LayoutGrid size={15} /></IconButton>
        <IconButton label="Version history" onClick={p.onHistory} testId="history"><History size={15} /></IconButton>
        <IconButton label="Keyboard shortcuts (?)" onClick={p.onHelp} testId="help"><Keyboard size={15} /></IconButton>
        <Link href={p.runsHref} className="btn btn-sm" data-testid="runs-link"><ListChecks size={14} aria-hidden /> Runs</Link>
        {p.canRun && (
          <button type="button" className="btn btn-sm" onClick={p.onRun} data-testid="run-now"><Play size={14} aria-hidden /> Run</button>
        )}
        <button type="button" className="btn btn-primary btn-sm" onClick={p.onSave} disabled={p.saving || p.readOnly} data-testid="save" title="Save (Ctrl+S)">
          <Save size={14} aria-hidden /> Save
        </button>
      </div>
    </header>
  );
}

function IconButton({ label, onClick, disabled, testId, children }: { label: string; onClick: () => void; disabled?: boolean; testId: string; children: React.ReactNode }) {
  return (
    <button type="button" className="btn btn-ghost btn-sm" aria-label={label} title={label} onClick={onClick} disabled={disabled} data-testid={testId}>
      {children}
    </button>
  );
}
