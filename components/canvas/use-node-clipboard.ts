"use client";
import { useCallback } from "react";
import { toast } from "sonner";
import { useCanvasStore, type ClipboardPayload } from "./canvas-store";

const CLIPBOARD_KEY = "conveyor:clipboard";

/** Says which pasted or duplicated nodes lost their pinned data to the limits (see pinned-limits.ts). */
export function warnPinnedLeftOut(message: string | null): void {
  if (message) toast.warning(message, { duration: 10_000 });
}

/** Copy/paste of selected nodes: the system clipboard when allowed, localStorage otherwise (works across automations). */
export function useNodeClipboard(readOnly: boolean) {
  const store = useCanvasStore;
  const copy = useCallback(async () => {
    const payload = store.getState().copySelection();
    if (!payload) return;
    const text = JSON.stringify(payload);
    // Pinned outputs can make the payload megabytes: a full localStorage must not stop the system clipboard.
    try {
      localStorage.setItem(CLIPBOARD_KEY, text);
    } catch {
      localStorage.removeItem(CLIPBOARD_KEY);
    }
    await navigator.clipboard?.writeText(text).catch(() => undefined);
    toast.success(`Copied ${payload.nodes.length} node${payload.nodes.length === 1 ? "" : "s"}`);
  }, [store]);
  /** Pastes at `at` (flow coordinates; e.g. where the canvas menu was opened), else next to the originals. */
  const paste = useCallback(
    async (at?: { x: number; y: number }) => {
      if (readOnly) return;
      let payload: ClipboardPayload | null = null;
      for (const read of [() => navigator.clipboard?.readText(), () => Promise.resolve(localStorage.getItem(CLIPBOARD_KEY))]) {
        try {
          const text = await read();
          const parsed = text ? JSON.parse(text) : null;
          if (parsed?.kind === "conveyor/nodes") {
            payload = parsed;
            break;
          }
        } catch {
          /* not ours; try the next source */
        }
      }
      if (!payload) return toast.message("Nothing to paste: copy nodes first.");
      const { message } = store.getState().paste(payload, at);
      warnPinnedLeftOut(message);
    },
    [readOnly, store],
  );
  return { copy, paste };
}
