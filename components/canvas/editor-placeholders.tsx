/** What the editor shows while it loads, and on an empty canvas. */

export function EditorSkeleton() {
  return <div className="flex h-screen items-center justify-center text-sm text-muted">Loading editor…</div>;
}

export function EmptyCanvasHint({ narrow }: { narrow: boolean }) {
  return (
    <div className="pointer-events-none absolute inset-0 flex items-center justify-center p-4">
      <div className="rounded-lg border border-dashed border-zinc-300 bg-surface/80 px-6 py-5 text-center">
        <p className="font-medium">Start with a trigger</p>
        <p className="text-xs text-muted">{narrow ? "Press + to add one." : "Drag one from the left, or press it to add. Press ? for shortcuts."}</p>
      </div>
    </div>
  );
}
