"use client";
/**
 * The editor's panels and dialogs, loaded on demand: none of them is needed to show the canvas, and
 * together (node forms, docs markdown, the test tab, connection forms and their schema code) they were
 * about half of the editor's own JavaScript (280 of 556 KB, besides React and Next). Each is a chunk of
 * its own (React.lazy for the node panel, next/dynamic without SSR for the dialogs: none is open when the
 * page is rendered on the server), fetched the first time it is wanted; `preloadPanels` fetches the node
 * panel's chunk shortly after the canvas is up, so a click on a node does not wait for it.
 * docs/editor-bench.md.
 */
import { X } from "lucide-react";
import dynamic from "next/dynamic";
import { lazy, Suspense, useState } from "react";
import type { ConfigPanelProps } from "./config-panel/config-panel";

const loadConfigPanel = () => import("./config-panel/config-panel").then((m) => ({ default: m.ConfigPanel }));
const LazyConfigPanel = lazy(loadConfigPanel);

/**
 * The node panel. Until its code has arrived, an empty panel of the same size stands in (it can be closed),
 * so the canvas narrows at once when a node is selected, as it did when the panel was in the main bundle.
 */
export function ConfigPanel(props: ConfigPanelProps) {
  return (
    <Suspense
      fallback={
        <aside
          aria-label={`Configure ${props.node.data.name}`}
          aria-busy="true"
          data-testid="config-panel"
          className="flex h-full w-[380px] shrink-0 flex-col border-l border-border bg-surface"
        >
          <header className="flex items-center justify-between gap-2 border-b border-border px-4 py-3">
            <span className="truncate font-mono text-sm">{props.node.data.name}</span>
            <button type="button" className="btn btn-ghost btn-sm" aria-label="Close panel" onClick={props.onClose}>
              <X size={16} />
            </button>
          </header>
          <p className="p-4 text-sm text-muted">Loading…</p>
        </aside>
      }
    >
      <LazyConfigPanel {...props} />
    </Suspense>
  );
}
const loadConnectDialog = () => import("./connect-dialog");
export const ConnectDialog = dynamic(() => loadConnectDialog().then((m) => m.ConnectDialog), { ssr: false });
export const RunDialog = dynamic(() => import("./run-dialog").then((m) => m.RunDialog), { ssr: false });
export const ShortcutsDialog = dynamic(() => import("./shortcuts-dialog").then((m) => m.ShortcutsDialog), { ssr: false });
export const VersionsDrawer = dynamic(() => import("./versions-drawer").then((m) => m.VersionsDrawer), { ssr: false });
export const ConnectionDialog = dynamic(() => import("@/components/connections/connection-dialog").then((m) => m.ConnectionDialog), {
  ssr: false,
});
export const SiteChooser = dynamic(() => import("@/components/connections/site-chooser").then((m) => m.SiteChooser), { ssr: false });

/**
 * Fetches the node panel's code once the open has settled (a second later, then in idle time), so that it
 * does not compete with the canvas's first render; a no-op once loaded.
 */
export function preloadPanels(): () => void {
  let idle: number | undefined;
  const t = setTimeout(() => {
    // The connect dialog too: opened by C, it must be there before the letters typed after it.
    const load = () => void Promise.all([loadConfigPanel(), loadConnectDialog()]);
    if (typeof window.requestIdleCallback === "function") idle = window.requestIdleCallback(load, { timeout: 2000 });
    else load();
  }, 1000);
  return () => {
    clearTimeout(t);
    if (idle !== undefined) window.cancelIdleCallback(idle);
  };
}

/**
 * True from the first time `flag` is true: a dialog is mounted (and its code fetched) when first opened
 * and then stays mounted, so closing it behaves as before (the native <dialog> closes and hands focus back).
 */
export function useOpenedOnce(flag: boolean): boolean {
  const [ever, setEver] = useState(flag);
  if (flag && !ever) setEver(true);
  return ever || flag;
}
