/**
 * Letters typed right after a key opens a lazily loaded dialog (C opens "connect"): until the dialog's
 * search box takes them, they are kept here instead of going to the canvas, and the box starts with them.
 * Without this the first letters were lost while the dialog's code loaded and it opened ("lter" for
 * "filter", or nothing at all).
 */
let typed: string | null = null;
let stop: (() => void) | null = null;

/** Starts keeping printable keys (no modifier but Shift), for at most `ms`. Call it from the opening key's handler. */
export function startTypeAhead(ms = 3000): void {
  endTypeAhead();
  typed = "";
  const onKey = (e: KeyboardEvent) => {
    if (e.key.length !== 1 || e.ctrlKey || e.metaKey || e.altKey) return;
    typed += e.key;
    e.preventDefault();
    e.stopPropagation();
  };
  // The opening key's own event has passed the window's capture phase already: it is not kept.
  window.addEventListener("keydown", onKey, true);
  const timer = setTimeout(endTypeAhead, ms);
  stop = () => {
    window.removeEventListener("keydown", onKey, true);
    clearTimeout(timer);
  };
}

let taken: string | null = null;

/**
 * What was typed since `startTypeAhead` (empty when nothing), and stops keeping keys. A state initializer
 * may be called twice in one render (React's strict mode): a second call in the same task gets the same text.
 */
export function takeTypeAhead(): string {
  if (typed === null) return taken ?? "";
  const out = typed;
  endTypeAhead();
  taken = out;
  queueMicrotask(() => (taken = null));
  return out;
}

function endTypeAhead(): void {
  stop?.();
  stop = null;
  typed = null;
}
