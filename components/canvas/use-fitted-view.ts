"use client";
/**
 * Fit-to-view that stays fitted: the graph is fitted when an automation is (re)loaded, and as long as the
 * user has not panned or zoomed since the last fit, a change of the canvas size (the node panel opening or
 * closing, the window resizing) fits it again, so the panel never hides part of a fitted graph.
 * Nodes outside the view are not rendered (onlyRenderVisibleElements), so a node with keyboard focus can be
 * re-created while the view moves; focus is then given back to it once the view has settled.
 */
import { useReactFlow, type Viewport } from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef } from "react";
import { fitOptions } from "./canvas-flow";

/** `el` is the element around the canvas (its size changes are watched); pass it from a state-setter ref. */
export function useFittedView(el: HTMLElement | null) {
  const flow = useReactFlow();
  const fitted = useRef<Viewport | "pending" | null>("pending");
  const focusedNode = useRef<string | null>(null);

  useEffect(() => {
    const onFocusIn = (e: FocusEvent) => {
      focusedNode.current = (e.target as HTMLElement | null)?.closest?.<HTMLElement>(".react-flow__node")?.dataset.id ?? null;
    };
    // A click elsewhere means focus left on purpose.
    const onPointer = (e: PointerEvent) => {
      if (!(e.target as HTMLElement | null)?.closest?.(".react-flow__node")) focusedNode.current = null;
    };
    document.addEventListener("focusin", onFocusIn);
    document.addEventListener("pointerdown", onPointer, true);
    return () => {
      document.removeEventListener("focusin", onFocusIn);
      document.removeEventListener("pointerdown", onPointer, true);
    };
  }, []);
  const restoreFocus = useCallback(() => {
    const id = focusedNode.current;
    const active = document.activeElement;
    if (!id || (active && active !== document.body && active.isConnected)) return;
    document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`)?.focus({ preventScroll: true });
  }, []);

  const fit = useCallback(
    async (duration = 200) => {
      fitted.current = "pending";
      // fitView waits for the nodes to be measured; an empty canvas may never answer.
      await Promise.race([flow.fitView({ ...fitOptions(el?.clientWidth ?? 0), duration }), new Promise((r) => setTimeout(r, 1500))]);
      // After an animated fit the viewport settles at its end value.
      fitted.current = flow.getViewport();
      requestAnimationFrame(restoreFocus);
    },
    [flow, restoreFocus, el],
  );

  const onUserMove = useCallback((vp: Viewport) => {
    const f = fitted.current;
    if (f === "pending" || !f || Math.abs(f.x - vp.x) > 1 || Math.abs(f.y - vp.y) > 1 || Math.abs(f.zoom - vp.zoom) > 0.001) fitted.current = null;
  }, []);
  const onFitted = useCallback(() => void setTimeout(() => (fitted.current = flow.getViewport()), 0), [flow]);
  const isFitted = useCallback(() => fitted.current !== null, []);

  useEffect(() => {
    if (!el) return;
    let last = { w: el.clientWidth, h: el.clientHeight };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ro = new ResizeObserver(() => {
      const now = { w: el.clientWidth, h: el.clientHeight };
      if (Math.abs(now.w - last.w) < 2 && Math.abs(now.h - last.h) < 2) return;
      last = now;
      if (!fitted.current) return;
      clearTimeout(timer);
      timer = setTimeout(() => void fit(150), 30);
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      clearTimeout(timer);
    };
  }, [el, fit]);

  return useMemo(() => ({ fit, onUserMove, onFitted, isFitted }), [fit, onUserMove, onFitted, isFitted]);
}
