"use client";
/** Keyboard shortcuts for the canvas (ignored while typing in a field, except save). */
import { useEffect } from "react";

export interface ShortcutHandlers {
  save(): void;
  undo(): void;
  redo(): void;
  copy(): void;
  paste(): void;
  duplicate(): void;
  remove(): void;
  selectAll(): void;
  help(): void;
  fit(): void;
  tidy(): void;
  escape(): void;
}

export const SHORTCUTS: Array<{ keys: string; action: string }> = [
  { keys: "Mod+S", action: "Save" },
  { keys: "Mod+Z", action: "Undo" },
  { keys: "Mod+Shift+Z / Mod+Y", action: "Redo" },
  { keys: "Mod+C / Mod+V", action: "Copy / paste nodes (also across automations)" },
  { keys: "Mod+D", action: "Duplicate selection" },
  { keys: "Delete / Backspace", action: "Delete selection" },
  { keys: "Mod+A", action: "Select all" },
  { keys: "Shift+drag", action: "Box-select" },
  { keys: "Mod/Shift+click", action: "Add to selection" },
  { keys: "1", action: "Fit view" },
  { keys: "Shift+T", action: "Tidy up" },
  { keys: "Esc", action: "Clear selection / close panel" },
  { keys: "?", action: "This help" },
];

function typing(target: EventTarget | null) {
  const el = target as HTMLElement | null;
  if (!el) return false;
  return el.isContentEditable || el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || !!el.closest?.(".cm-editor");
}

export function useEditorShortcuts(h: ShortcutHandlers) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.metaKey || e.ctrlKey;
      const k = e.key.toLowerCase();
      if (mod && k === "s") {
        e.preventDefault();
        return h.save();
      }
      if (typing(e.target) || document.querySelector("[role=dialog][aria-modal=true]")) return;
      if (mod && k === "z") {
        e.preventDefault();
        return e.shiftKey ? h.redo() : h.undo();
      }
      if (mod && k === "y") return (e.preventDefault(), h.redo());
      if (mod && k === "c") return h.copy();
      if (mod && k === "v") return (e.preventDefault(), h.paste());
      if (mod && k === "d") return (e.preventDefault(), h.duplicate());
      if (mod && k === "a") return (e.preventDefault(), h.selectAll());
      if (mod) return;
      if (e.key === "Delete" || e.key === "Backspace") return (e.preventDefault(), h.remove());
      if (e.key === "?") return h.help();
      if (e.key === "1") return h.fit();
      if (e.key === "T" && e.shiftKey) return h.tidy();
      if (e.key === "Escape") return h.escape();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [h]);
}
