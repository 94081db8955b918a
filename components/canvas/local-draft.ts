"use client";
/**
 * Unsaved editor changes kept in this browser (localStorage) while they are unsaved, so that a closed or
 * reloaded tab, a crash, a server restart or a sign-in that ended the session does not lose them. The
 * draft records the version it was based on: restoring it saves with that version as the base, so a
 * save someone else made meanwhile is detected (a conflict), not silently overwritten. A successful
 * save (or discarding the draft) removes it.
 */
import { useCallback, useEffect, useRef, useState, type RefObject } from "react";
import { useCanvasStore } from "./canvas-store";
import type { GraphDoc } from "./types";

const key = (automationId: string) => `conveyor:unsaved:${automationId}`;

export interface LocalDraft {
  /** The saved version these changes were made on. */
  basedOn: number;
  name: string;
  graph: GraphDoc;
  /** When it was last written (ms since the epoch). */
  at: number;
}

export function readLocalDraft(automationId: string): LocalDraft | null {
  try {
    const raw = localStorage.getItem(key(automationId));
    if (!raw) return null;
    const d = JSON.parse(raw) as LocalDraft;
    return typeof d.basedOn === "number" && d.graph && Array.isArray(d.graph.nodes) ? d : null;
  } catch {
    return null;
  }
}

export function clearLocalDraft(automationId: string) {
  try {
    localStorage.removeItem(key(automationId));
  } catch {
    /* storage unavailable: nothing was kept */
  }
}

function writeLocalDraft(automationId: string, draft: LocalDraft) {
  try {
    localStorage.setItem(key(automationId), JSON.stringify(draft));
  } catch {
    /* full or unavailable: the leave prompt still guards the tab */
  }
}

/**
 * While the editor has unsaved changes, writes them (debounced) as the automation's local draft, with
 * the version they were made on (`loadedVersion`: `id@version` of the document the edits started from).
 */
export function useKeepLocalDraft(automationId: string, dirty: boolean, name: string, loadedVersionRef: RefObject<string | null>) {
  // Back to no unsaved changes (saved, their version loaded, undone to the saved state): nothing to keep.
  const wasDirty = useRef(false);
  useEffect(() => {
    if (wasDirty.current && !dirty) clearLocalDraft(automationId);
    wasDirty.current = dirty;
  }, [automationId, dirty]);
  const nodes = useCanvasStore((s) => (s.dirty ? s.nodes : null));
  const edges = useCanvasStore((s) => (s.dirty ? s.edges : null));
  useEffect(() => {
    if (!dirty) return;
    const write = () => {
      const basedOn = Number(loadedVersionRef.current?.split("@")[1]);
      if (Number.isInteger(basedOn)) writeLocalDraft(automationId, { basedOn, name, graph: useCanvasStore.getState().toDocument(), at: Date.now() });
    };
    const t = setTimeout(write, 400);
    // A tab closed within the debounce still keeps the last change.
    window.addEventListener("pagehide", write);
    return () => {
      clearTimeout(t);
      window.removeEventListener("pagehide", write);
    };
  }, [automationId, dirty, name, loadedVersionRef, nodes, edges]);
}

/**
 * On opening the editor: the local draft left by an earlier visit (unless an OAuth round trip already
 * restored one), to offer back. `restore` loads it as unsaved changes made on its own version (the
 * next save names that version, so a save made since is a conflict, not overwritten).
 */
export function useLocalDraftOffer(opts: {
  automationId: string;
  loadedVersionRef: RefObject<string | null>;
  kindOf: (key: string) => "trigger" | "component";
  setName: (name: string) => void;
}) {
  const { automationId, loadedVersionRef, kindOf, setName } = opts;
  const [offer, setOffer] = useState<LocalDraft | null>(null);
  /** Called once the saved automation is first in the editor. */
  const check = useCallback(() => {
    if (!useCanvasStore.getState().dirty) setOffer(readLocalDraft(automationId));
  }, [automationId]);
  const discard = useCallback(() => {
    clearLocalDraft(automationId);
    setOffer(null);
  }, [automationId]);
  const restore = useCallback(() => {
    if (!offer) return;
    loadedVersionRef.current = `${automationId}@${offer.basedOn}`;
    useCanvasStore.getState().load(offer.graph, kindOf);
    useCanvasStore.setState({ dirty: true });
    setName(offer.name);
    setOffer(null);
  }, [offer, automationId, loadedVersionRef, kindOf, setName]);
  return { offer, check, restore, discard };
}
