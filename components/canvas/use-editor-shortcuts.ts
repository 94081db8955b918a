"use client";
/**
 * Keyboard shortcuts for the canvas: ignored while typing in a field (except save), in an open dialog, and
 * with focus in a part of the editor that has its own keys (the node panel, the palette: marked
 * `data-canvas-keys="local"`), where only save, undo/redo and Esc apply. Otherwise a letter typed on the
 * panel's "Expression" toggle would disable the node (D), and Backspace on one of its switches delete it.
 */
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
  /** Disable / enable the focused or selected nodes. */
  disable(): void;
  /** Open "connect" for the focused or selected node. */
  connect(): void;
  /** The context menu of the focused node (or of the canvas). */
  menu(): void;
}

export const SHORTCUTS: Array<{ keys: string; action: string }> = [
  { keys: "Mod+S", action: "Save" },
  { keys: "Mod+Z", action: "Undo" },
  { keys: "Mod+Shift+Z / Mod+Y", action: "Redo" },
  { keys: "Mod+C / Mod+V", action: "Copy / paste nodes (also across automations)" },
  { keys: "Right-click", action: "Actions for a node, a selection or the canvas" },
  { keys: "Mod+D", action: "Duplicate selection" },
  { keys: "Delete / Backspace", action: "Delete selection" },
  { keys: "Mod+A", action: "Select all" },
  { keys: "Shift+drag", action: "Box-select" },
  { keys: "Mod/Shift+click", action: "Add to selection" },
  { keys: "1", action: "Fit view" },
  { keys: "Shift+T", action: "Tidy up" },
  { keys: "Tab / Shift+Tab", action: "Move focus between nodes (Enter selects and opens settings)" },
  { keys: "Arrow keys", action: "Move the selected nodes" },
  { keys: "C", action: "Connect the focused node to another (list, ↑ ↓, Enter)" },
  { keys: "D", action: "Disable / enable the focused or selected nodes" },
  { keys: "Shift+F10 / Menu", action: "Actions for the focused node (or the canvas)" },
  { keys: "Esc", action: "Clear selection / close panel" },
  { keys: "?", action: "This help" },
];

function typing(target: EventTarget | null) {
  const el = target as HTMLElement | null;
  if (!el) return false;
  return el.isContentEditable || el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || !!el.closest?.(".cm-editor");
}

/** Focus inside the node panel or the palette: keys that act on the canvas's nodes do not apply there. */
function localKeys(target: EventTarget | null) {
  return !!(target as HTMLElement | null)?.closest?.('[data-canvas-keys="local"]');
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
      if (typing(e.target) || document.querySelector("dialog[open], [role=dialog][aria-modal=true]")) return;
      if (mod && k === "z") {
        e.preventDefault();
        return e.shiftKey ? h.redo() : h.undo();
      }
      if (mod && k === "y") return (e.preventDefault(), h.redo());
      if (localKeys(e.target)) return e.key === "Escape" && !mod ? h.escape() : undefined;
      if (mod && k === "c") return h.copy();
      if (mod && k === "v") return (e.preventDefault(), h.paste());
      if (mod && k === "d") return (e.preventDefault(), h.duplicate());
      if (mod && k === "a") return (e.preventDefault(), h.selectAll());
      if (mod) return;
      if (e.key === "ContextMenu" || (e.key === "F10" && e.shiftKey)) return (e.preventDefault(), h.menu());
      if (e.altKey) return;
      if (k === "d" && !e.shiftKey) return (e.preventDefault(), h.disable());
      if (k === "c" && !e.shiftKey) return (e.preventDefault(), h.connect());
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
