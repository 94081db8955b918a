"use client";
/**
 * Unsaved editor changes kept in this browser (localStorage) while they are unsaved, so that a closed or
 * reloaded tab, a crash, a server restart or a sign-in that ended the session does not lose them. The
 * draft records the version it was based on: restoring it saves with that version as the base, so a
 * save someone else made meanwhile is detected (a conflict), not silently overwritten. A successful
 * save (or discarding the draft) removes it. Secrets typed into a node (fields marked `sensitive`) are
 * not written there: browser storage is plain text that outlives the session, so they are blanked and
 * the offer says to type them again.
 */
import { useCallback, useEffect, useRef, useState, type RefObject } from "react";
import { sensitivePaths } from "@/integrations/core/sensitive-paths";
import { useCatalog, type CatalogIndex } from "./catalog-context";
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
  /** Names of the nodes whose typed secrets were left out (to be typed again). */
  secretsLeftOut?: string[];
}

/** What the server shows for a stored secret: kept as it is (saving it keeps the stored value). */
const STORED_SECRET = "********";

/** The graph without the secrets typed into it (stored ones, shown masked, stay), and the nodes that had any. */
export function withoutTypedSecrets(graph: GraphDoc, byKey: CatalogIndex["byKey"]): { graph: GraphDoc; leftOut: string[] } {
  const leftOut: string[] = [];
  const nodes = graph.nodes.map((node) => {
    const schema = byKey.get(node.key)?.config;
    if (!schema || !node.config) return node;
    let config = node.config as Record<string, unknown>;
    for (const path of sensitivePaths(schema)) {
      if (!path || path.includes("*")) continue;
      const keys = path.split(".");
      const parents: Array<Record<string, unknown>> = [config];
      for (const k of keys.slice(0, -1)) {
        const next = parents.at(-1)![k];
        if (!next || typeof next !== "object") break;
        parents.push(next as Record<string, unknown>);
      }
      if (parents.length !== keys.length) continue;
      const value = parents.at(-1)![keys.at(-1)!];
      if (typeof value !== "string" || !value || value === STORED_SECRET) continue;
      // Copy along the path, then blank the value.
      let replaced: Record<string, unknown> = { ...parents.at(-1)!, [keys.at(-1)!]: "" };
      for (let i = keys.length - 2; i >= 0; i--) replaced = { ...parents[i]!, [keys[i]!]: replaced };
      config = replaced;
      if (!leftOut.includes(node.name)) leftOut.push(node.name);
    }
    return config === node.config ? node : { ...node, config };
  });
  return { graph: leftOut.length ? { ...graph, nodes } : graph, leftOut };
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
  const { byKey } = useCatalog();
  const nodes = useCanvasStore((s) => (s.dirty ? s.nodes : null));
  const edges = useCanvasStore((s) => (s.dirty ? s.edges : null));
  useEffect(() => {
    if (!dirty) return;
    const write = () => {
      const basedOn = Number(loadedVersionRef.current?.split("@")[1]);
      if (!Number.isInteger(basedOn)) return;
      const { graph, leftOut } = withoutTypedSecrets(useCanvasStore.getState().toDocument(), byKey);
      writeLocalDraft(automationId, { basedOn, name, graph, at: Date.now(), ...(leftOut.length ? { secretsLeftOut: leftOut } : {}) });
    };
    const t = setTimeout(write, 400);
    // A tab closed within the debounce still keeps the last change.
    window.addEventListener("pagehide", write);
    return () => {
      clearTimeout(t);
      window.removeEventListener("pagehide", write);
    };
  }, [automationId, dirty, name, loadedVersionRef, nodes, edges, byKey]);
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
