"use client";
/** The palette on narrow screens: a drawer from the left; choosing a block adds it and closes the drawer. */
import { X } from "lucide-react";
import { useEffect, useRef } from "react";
import type { PaletteUnit } from "../types";
import { BuildingBlocks } from "./building-blocks";

export function PaletteDrawer({
  open,
  onClose,
  onAdd,
  onAddNote,
}: {
  open: boolean;
  onClose: () => void;
  onAdd: (u: PaletteUnit) => void;
  onAddNote: () => void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const back = document.activeElement as HTMLElement | null;
    ref.current?.querySelector<HTMLInputElement>("#palette-search")?.focus();
    return () => back?.focus?.();
  }, [open]);
  if (!open) return null;
  return (
    <div
      className="fixed inset-0 z-40 flex"
      role="dialog"
      aria-modal="true"
      aria-label="Add a node"
      data-testid="palette-drawer"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.stopPropagation();
          onClose();
        }
      }}
    >
      <div ref={ref} className="relative flex h-full w-[85vw] max-w-80 flex-col bg-surface shadow-2xl">
        <div className="flex items-center justify-between border-b border-border px-3 py-2">
          <h2 className="text-sm">Add a node</h2>
          <button type="button" className="btn btn-ghost btn-sm" aria-label="Close" onClick={onClose}>
            <X size={16} />
          </button>
        </div>
        <BuildingBlocks
          className="min-h-0 w-full flex-1 border-r-0"
          onAdd={(u) => {
            onClose();
            onAdd(u);
          }}
          onAddNote={() => {
            onClose();
            onAddNote();
          }}
        />
      </div>
      <button type="button" className="flex-1 bg-black/40" aria-label="Close the palette" tabIndex={-1} onClick={onClose} />
    </div>
  );
}
