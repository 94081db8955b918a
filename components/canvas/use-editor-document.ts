"use client";
/**
 * The automation as a document in the editor: its name and unsaved state, loading each saved version
 * into the canvas store (never over unsaved edits), the unsaved changes kept in this browser and
 * offered back, the leave guard, and saving. The editor (canvas-editor.tsx) lays out what this holds.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { Automation } from "@/server/contracts/automations";
import { useCanvasStore } from "./canvas-store";
import { useKeepLocalDraft, useLocalDraftOffer } from "./local-draft";
import { selectNodeFromUrl } from "./node-from-url";
import { restoreOAuthDraft } from "./oauth-draft";
import { useLeaveGuard } from "./use-leave-guard";
import { useSaveAutomation } from "./use-save-automation";
import { problemsFromList } from "./use-trpc-problems";

export function useEditorDocument(o: {
  workspaceId: string;
  automationId: string;
  automation: Automation | undefined;
  readOnly: boolean;
  kindOf: (key: string) => "trigger" | "component";
  /** Shows the whole automation (after a version is loaded). */
  fit: () => unknown;
}) {
  const { workspaceId, automationId, automation, readOnly, kindOf, fit } = o;
  const store = useCanvasStore;
  const graphDirty = useCanvasStore((s) => s.dirty);
  const [name, setName] = useState("");
  const [metaDirty, setMetaDirty] = useState(false);
  const [siteFor, setSiteFor] = useState<string | null>(null);
  /** `id@version` of the document in the store (a refetch of the same version is not reloaded). */
  const loadedVersion = useRef<string | null>(null);
  const localDraft = useLocalDraftOffer({ automationId, loadedVersionRef: loadedVersion, kindOf, setName });
  const checkLocalDraft = localDraft.check;
  /** Shows a saved version as the editor's document, with nothing unsaved (a load, a restored version, "load theirs"). */
  const showSaved = useCallback(
    (a: Automation) => {
      loadedVersion.current = `${a.id}@${a.version}`;
      store.getState().load(a.graph, kindOf);
      // A draft reopens with its problems marked.
      store.getState().setProblems(problemsFromList(a.problems ?? [], a.graph));
      setName(a.name);
      setMetaDirty(false);
    },
    [store, kindOf],
  );
  useEffect(() => {
    const a = automation;
    if (!a) return;
    if (loadedVersion.current === `${a.id}@${a.version}`) return;
    // Never clobber unsaved edits with a background refetch.
    if (loadedVersion.current && store.getState().dirty) return;
    const firstLoad = !loadedVersion.current;
    showSaved(a);
    restoreOAuthDraft(a.id, a.version, kindOf, setName, setSiteFor);
    if (firstLoad) checkLocalDraft();
    selectNodeFromUrl(a.version);
    // A (re)opened automation is shown whole, whatever the previous one's view was.
    void fit();
  }, [automation, kindOf, store, fit, checkLocalDraft, showSaved]);
  const dirty = graphDirty || metaDirty;
  useLeaveGuard(dirty);
  // Unsaved changes survive a closed tab, a crash or a sign-in: kept in this browser, offered back on return.
  useKeepLocalDraft(automationId, dirty && !readOnly, name, loadedVersion);
  // ---- save (a disabled automation saves as a draft with its problems; an enabled one must have none)
  const nameNow = useRef(name);
  useEffect(() => {
    nameNow.current = name;
  }, [name]);
  // A name typed while the save was on its way stays unsaved.
  const onSaved = useCallback((savedName: string) => setMetaDirty(nameNow.current !== savedName), []);
  const { doSave, saving } = useSaveAutomation({ workspaceId, automationId, automation, readOnly, name, loadedVersion, onSaved, showSaved });
  return { name, setName, metaDirty, setMetaDirty, siteFor, setSiteFor, dirty, localDraft, doSave, saving, showSaved };
}
