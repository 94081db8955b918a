"use client";
/**
 * Saving the editor's document: a disabled automation saves as a draft with its problems marked; an enabled
 * one must have none (the toast offers to disable it and save it as a draft). The save names the version
 * the edits were made on: when someone saved in between (another tab, a colleague, an apply), it is
 * refused and the toast offers to save over it or to load theirs, instead of silently replacing it.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useCallback, type RefObject } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc-provider";
import type { Automation } from "@/server/contracts/automations";
import { useCanvasStore } from "./canvas-store";
import { isWarning } from "./types";
import { problemsFromError, problemsFromList } from "./use-trpc-problems";
import { clearLocalDraft } from "./local-draft";
import { saveFailure } from "./save-error";

const CONFLICT_TOAST = "save-conflict";

export function useSaveAutomation({
  workspaceId,
  automationId,
  automation,
  readOnly,
  name,
  loadedVersion,
  onSaved,
  showSaved,
}: {
  workspaceId: string;
  automationId: string;
  automation: Automation | undefined;
  readOnly: boolean;
  name: string;
  /** `id@version` of the document in the store (a refetch of the same version is not reloaded). */
  loadedVersion: RefObject<string | null>;
  /** Saved with this name (the name typed at the time; it may have changed since). */
  onSaved: (savedName: string) => void;
  /** Shows a saved version as the editor's document, with nothing unsaved. */
  showSaved: (saved: Automation) => void;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const save = useMutation(trpc.automations.save.mutationOptions());
  /** After a conflict: drops the unsaved changes and shows the automation as saved now. */
  const loadTheirs = useCallback(async () => {
    const fresh = await qc.fetchQuery({ ...trpc.automations.get.queryOptions({ workspaceId, automationId }), staleTime: 0 });
    clearLocalDraft(automationId);
    showSaved(fresh);
    toast.success(`Loaded version ${fresh.version} as saved; your changes were dropped.`);
  }, [qc, trpc, workspaceId, automationId, showSaved]);
  const doSave = useCallback(
    async function saveNow(opts: { asDraft?: boolean; overwrite?: boolean } = {}): Promise<void> {
      const a = automation;
      if (!a || readOnly) return;
      const graph = useCanvasStore.getState().toDocument();
      const enabled = opts.asDraft ? false : a.enabled;
      const basedOn = Number(loadedVersion.current?.split("@")[1]);
      toast.dismiss(CONFLICT_TOAST);
      try {
        const saved = await save.mutateAsync({
          workspaceId,
          automationId,
          document: { name: name.trim() || a.name, description: a.description, enabled, concurrency: a.concurrency, graph },
          ...(opts.overwrite || !Number.isInteger(basedOn) ? {} : { ifVersion: basedOn }),
        });
        loadedVersion.current = `${saved.id}@${saved.version}`;
        // Edits made while the save was on its way were not in it: they stay unsaved (and kept locally).
        const unchanged = JSON.stringify(useCanvasStore.getState().toDocument()) === JSON.stringify(graph);
        if (unchanged) {
          useCanvasStore.getState().markSaved();
          clearLocalDraft(automationId);
        }
        const list = problemsFromList(saved.problems ?? [], graph);
        useCanvasStore.getState().setProblems(list);
        onSaved(name);
        qc.setQueryData(trpc.automations.get.queryKey({ workspaceId, automationId }), saved);
        qc.invalidateQueries({ queryKey: trpc.automations.triggerInfo.queryKey() });
        const errors = list.filter((p) => !isWarning(p)).length;
        const warnings = list.length - errors;
        if (errors) toast.warning(`Saved as a draft · version ${saved.version}. ${errors} problem${errors === 1 ? "" : "s"} to fix before it can be enabled.`);
        else toast.success(`Saved · version ${saved.version}${warnings ? ` · ${warnings} warning${warnings === 1 ? "" : "s"}` : ""}`);
      } catch (err) {
        const list = problemsFromError(err, graph);
        useCanvasStore.getState().setProblems(list);
        if (list.length) {
          toast.error(`Not saved: an enabled automation must have no problems (${list.length} marked on the nodes).`, {
            action: { label: "Disable and save as draft", onClick: () => void saveNow({ asDraft: true }) },
            className: "toast-decision",
            duration: 10_000,
          });
          const first = list.find((p) => p.nodeId);
          if (first?.nodeId) useCanvasStore.getState().select([first.nodeId]);
        } else {
          const failure = saveFailure(err);
          if (failure.kind === "conflict")
            toast.error(failure.message, {
              id: CONFLICT_TOAST,
              className: "toast-decision", // message above, both buttons full size under it (app/globals.css)
              duration: Infinity,
              action: { label: "Save mine over theirs", onClick: () => void saveNow({ ...opts, overwrite: true }) },
              cancel: { label: "Load theirs", onClick: () => void loadTheirs() },
            });
          else toast.error(failure.message, { duration: failure.kind === "refused" ? undefined : 15_000 });
        }
      }
    },
    [automation, readOnly, save, workspaceId, automationId, name, qc, trpc, loadedVersion, onSaved, loadTheirs],
  );
  return { doSave, saving: save.isPending };
}
