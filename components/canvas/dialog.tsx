"use client";
/** Minimal accessible modal on the native <dialog> element (focus trap, Esc to close). */
import { X } from "lucide-react";
import { useLayoutEffect, useRef, type ReactNode } from "react";

export function Dialog({ open, onClose, title, children, wide }: { open: boolean; onClose: () => void; title: string; children: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  // Opened in the commit that renders it (before paint, no key can slip in between): showModal then focuses
  // the content's element marked autofocus, else its first focusable one.
  useLayoutEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-modal="true"
      aria-label={title}
      onClose={onClose}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      className={`m-auto w-full ${wide ? "max-w-2xl" : "max-w-md"} rounded-xl border border-border bg-surface p-0 text-ink shadow-2xl backdrop:bg-black/30`}
    >
      {open && (
        <div className="flex max-h-[85vh] flex-col">
          <header className="flex items-center justify-between border-b border-border px-5 py-3">
            <h2>{title}</h2>
            <button type="button" className="btn btn-ghost btn-sm" aria-label="Close" onClick={onClose}>
              <X size={16} />
            </button>
          </header>
          <div className="overflow-y-auto px-5 py-4">{children}</div>
        </div>
      )}
    </dialog>
  );
}
