"use client";
/** The unsaved graph kept across an OAuth consent (which leaves the page), and restoring it on the way back. */
import { toast } from "sonner";
import { useCanvasStore } from "./canvas-store";
import type { GraphDoc } from "./types";

const draftKey = (automationId: string) => `conveyor:draft:${automationId}`;

interface OAuthDraft {
  version: number;
  name: string;
  graph: GraphDoc;
  nodeId: string | null;
}

/** Called just before the browser leaves for the consent page. */
export function saveOAuthDraft(automationId: string, draft: OAuthDraft) {
  sessionStorage.setItem(draftKey(automationId), JSON.stringify(draft));
}

/** Back from an OAuth consent: restore the unsaved graph and give the new connection to the node that asked. */
export function restoreOAuthDraft(
  automationId: string,
  version: number,
  kindOf: (key: string) => "trigger" | "component",
  setName: (v: string) => void,
  setSiteFor: (id: string | null) => void,
) {
  const params = new URLSearchParams(window.location.search);
  const connected = params.get("connected");
  const chooseSite = params.get("chooseSite");
  const error = params.get("oauthError");
  if (!connected && !chooseSite && !error) return;
  window.history.replaceState(null, "", window.location.pathname);
  const raw = sessionStorage.getItem(draftKey(automationId));
  sessionStorage.removeItem(draftKey(automationId));
  if (error) toast.error(`Authorisation failed: ${error}`);
  const connectionId = connected ?? chooseSite;
  if (raw) {
    const draft = JSON.parse(raw) as OAuthDraft;
    if (draft.version === version) {
      const s = useCanvasStore.getState();
      s.load(draft.graph, kindOf);
      useCanvasStore.setState({ dirty: true });
      setName(draft.name);
      if (draft.nodeId && connectionId && !error) {
        s.setConnection(draft.nodeId, connectionId);
        s.select([draft.nodeId]);
      }
    }
  }
  if (chooseSite) setSiteFor(chooseSite);
  else if (connected) toast.success("Connected. Your unsaved changes are back; save when ready.");
}
