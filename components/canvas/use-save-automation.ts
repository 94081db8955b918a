"use client";
/**
 * Saving the editor's document: a disabled automation saves as a draft with its problems marked; an enabled
 * one must have none (the toast offers to disable it and save it as a draft).
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useCallback, type RefObject } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc-provider";
import type { Automation } from "@/server/contracts/automations";
import { useCanvasStore } from "./canvas-store";
import { isWarning } from "./types";
import { problemsFromError, problemsFromList } from "./use-trpc-problems";

export function useSaveAutomation({
  workspaceId,
  automationId,
  automation,
  readOnly,
  name,
  loadedVersion,
  onSaved,
}: {
  workspaceId: string;
  automationId: string;
  automation: Automation | undefined;
  readOnly: boolean;
  name: string;
  /** `id@version` of the document in the store (a refetch of the same version is not reloaded). */
  loadedVersion: RefObject<string | null>;
  onSaved: () => void;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const save = useMutation(trpc.automations.save.mutationOptions());
  const doSave = useCallback(
    async function saveNow(opts: { asDraft?: boolean } = {}): Promise<void> {
      const a = automation;
      if (!a || readOnly) return;
      const graph = useCanvasStore.getState().toDocument();
      const enabled = opts.asDraft ? false : a.enabled;
      try {
        const saved = await save.mutateAsync({
          workspaceId,
          automationId,
          document: { name: name.trim() || a.name, description: a.description, enabled, concurrency: a.concurrency, graph },
        });
        loadedVersion.current = `${saved.id}@${saved.version}`;
        useCanvasStore.getState().markSaved();
        const list = problemsFromList(saved.problems ?? [], graph);
        useCanvasStore.getState().setProblems(list);
        onSaved();
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
            duration: 10_000,
          });
          const first = list.find((p) => p.nodeId);
          if (first?.nodeId) useCanvasStore.getState().select([first.nodeId]);
        } else toast.error(`Not saved: ${(err as Error).message}`);
      }
    },
    [automation, readOnly, save, workspaceId, automationId, name, qc, trpc, loadedVersion, onSaved],
  );
  return { doSave, saving: save.isPending };
}
