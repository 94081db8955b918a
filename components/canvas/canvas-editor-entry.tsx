"use client";
/**
 * The editor, rendered in the browser only (the page still prefetches its data on the server).
 * Server-rendering it made the server load the whole editor (React Flow, CodeMirror, the forms) for
 * the first open after a start and render every node into HTML that the browser then hydrated.
 * Without it, bench/editor.ts on the quiet machine (two alternated pairs): 200 nodes cold
 * 789 → 728 ms, warm 479 → 442 ms; 1,000 nodes 1,383 → 1,243 ms cold, 1,054 → 936 ms warm.
 */
import dynamic from "next/dynamic";
import { EditorSkeleton } from "./editor-placeholders";

export const CanvasEditorEntry = dynamic(() => import("./canvas-editor").then((m) => m.CanvasEditor), {
  ssr: false,
  loading: () => <EditorSkeleton />,
});
