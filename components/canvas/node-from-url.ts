"use client";
/**
 * `…/automations/<id>?node=<nodeId>` opens the editor with that node selected (its settings panel open):
 * the run view links a failed run's node this way, so the fix starts where the error is.
 */
import { toast } from "sonner";
import { useCanvasStore } from "./canvas-store";

export function selectNodeFromUrl(version: number) {
  const params = new URLSearchParams(window.location.search);
  const id = params.get("node");
  if (!id) return;
  params.delete("node");
  window.history.replaceState(null, "", window.location.pathname + (params.size ? `?${params}` : ""));
  const s = useCanvasStore.getState();
  if (s.nodes.some((n) => n.id === id)) s.select([id]);
  else toast.error(`That node is not in the current version (${version}) of this automation any more.`);
}
