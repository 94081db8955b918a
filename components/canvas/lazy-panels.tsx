"use client";
/**
 * The editor's panels and dialogs, loaded on demand: none of them is needed to show the canvas, and
 * together (node forms, docs markdown, the test tab, connection forms and their schema code) they were
 * about half of the editor's own JavaScript (280 of 556 KB, besides React and Next). Each is a chunk of its own (next/dynamic, client only: none is
 * open when the page is rendered on the server), fetched the first time it is wanted; `preloadPanels`
 * fetches the node panel's chunk shortly after the canvas is up, so a click on a node does not wait for it.
 * docs/editor-bench.md.
 */
import dynamic from "next/dynamic";
import { useState } from "react";

const loadConfigPanel = () => import("./config-panel/config-panel").then((m) => m.ConfigPanel);

export const ConfigPanel = dynamic(loadConfigPanel, { ssr: false });
export const ConnectDialog = dynamic(() => import("./connect-dialog").then((m) => m.ConnectDialog), { ssr: false });
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
    if (typeof window.requestIdleCallback === "function") idle = window.requestIdleCallback(() => void loadConfigPanel(), { timeout: 2000 });
    else void loadConfigPanel();
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
