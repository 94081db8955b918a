"use client";
/**
 * A small accessible menu at a screen position (right-click, Shift+F10 / the Menu key, or a "more" button):
 * role="menu" with arrow-key / Home / End / first-letter navigation, Enter or click to choose, Esc or a click
 * outside to close; focus returns to where it was.
 */
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from "react";

export interface MenuItem {
  id: string;
  label: string;
  icon?: ReactNode;
  shortcut?: string;
  onSelect?: () => void;
  disabled?: boolean;
  /** Why the item is disabled (shown as its tooltip and read as its description). */
  hint?: string;
  danger?: boolean;
  separatorBefore?: boolean;
}

export function ContextMenu({
  x,
  y,
  label,
  items,
  onClose,
  returnFocus,
}: {
  x: number;
  y: number;
  label: string;
  items: MenuItem[];
  onClose: () => void;
  returnFocus?: Element | null;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [pos, setPos] = useState({ left: x, top: y });
  const [active, setActive] = useState(() => items.findIndex((i) => !i.disabled));
  const returnTo = useRef<Element | null>(null);

  // Keep the menu on screen.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const r = el.getBoundingClientRect();
    setPos({ left: Math.max(4, Math.min(x, window.innerWidth - r.width - 4)), top: Math.max(4, Math.min(y, window.innerHeight - r.height - 4)) });
  }, [x, y]);

  useEffect(() => {
    // Given by the opener when opening changes focus (e.g. selecting the node opens its panel).
    returnTo.current = returnFocus ?? document.activeElement;
    ref.current?.focus();
    const onDown = (e: PointerEvent) => {
      if (!ref.current?.contains(e.target as Node)) onClose();
    };
    window.addEventListener("pointerdown", onDown, true);
    window.addEventListener("blur", onClose);
    return () => {
      window.removeEventListener("pointerdown", onDown, true);
      window.removeEventListener("blur", onClose);
      let back = returnTo.current as HTMLElement | null;
      // A canvas node may have been re-created meanwhile (culled while the view moved): find it again.
      if (back && !back.isConnected && back.dataset?.id)
        back = document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(back.dataset.id)}"]`);
      back?.focus?.({ preventScroll: true });
    };
  }, [onClose]); // eslint-disable-line react-hooks/exhaustive-deps -- returnFocus is read once, at opening

  const enabled = items.map((it, i) => (it.disabled ? -1 : i)).filter((i) => i >= 0);
  const move = (dir: 1 | -1) => {
    if (!enabled.length) return;
    const at = enabled.indexOf(active);
    setActive(enabled[(at + dir + enabled.length) % enabled.length]!);
  };
  const choose = (i: number) => {
    const it = items[i];
    if (!it || it.disabled) return;
    onClose();
    it.onSelect?.();
  };

  return (
    <div
      ref={ref}
      role="menu"
      aria-label={label}
      tabIndex={-1}
      data-testid="context-menu"
      aria-activedescendant={active >= 0 ? `cm-item-${items[active]?.id}` : undefined}
      style={{ left: pos.left, top: pos.top }}
      className="fixed z-50 min-w-52 rounded-lg border border-border bg-surface py-1 text-sm text-ink shadow-xl outline-none"
      onContextMenu={(e) => e.preventDefault()}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === "ArrowDown") return (e.preventDefault(), move(1));
        if (e.key === "ArrowUp") return (e.preventDefault(), move(-1));
        if (e.key === "Home") return (e.preventDefault(), setActive(enabled[0] ?? -1));
        if (e.key === "End") return (e.preventDefault(), setActive(enabled[enabled.length - 1] ?? -1));
        if (e.key === "Enter" || e.key === " ") return (e.preventDefault(), choose(active));
        if (e.key === "Escape" || e.key === "Tab") return (e.preventDefault(), onClose());
        if (e.key.length === 1) {
          const k = e.key.toLowerCase();
          const hit = enabled.find((i) => items[i]!.label.toLowerCase().startsWith(k));
          if (hit !== undefined) setActive(hit);
        }
      }}
    >
      {items.map((it, i) => (
        <div key={it.id}>
          {it.separatorBefore && <div role="separator" className="my-1 border-t border-border" />}
          <div
            id={`cm-item-${it.id}`}
            role="menuitem"
            aria-disabled={it.disabled || undefined}
            aria-describedby={it.hint ? `cm-hint-${it.id}` : undefined}
            title={it.hint}
            data-testid={`menu-${it.id}`}
            onPointerEnter={() => !it.disabled && setActive(i)}
            onClick={() => choose(i)}
            className={`mx-1 flex cursor-default items-center gap-2 rounded-md px-2.5 py-1.5 ${it.disabled ? "text-zinc-400" : it.danger ? "text-danger" : ""} ${i === active ? "bg-zinc-100" : ""}`}
          >
            <span className="inline-flex w-4 justify-center" aria-hidden>
              {it.icon}
            </span>
            <span className="flex-1">{it.label}</span>
            {it.shortcut && <kbd className="font-mono text-[11px] text-muted">{it.shortcut}</kbd>}
            {it.hint && (
              <span id={`cm-hint-${it.id}`} className="sr-only">
                {it.hint}
              </span>
            )}
          </div>
        </div>
      ))}
    </div>
  );
}
