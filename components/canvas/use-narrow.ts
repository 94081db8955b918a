"use client";
import { useSyncExternalStore } from "react";

const QUERY = "(max-width: 767px)";

/** Below Tailwind's `md` breakpoint: the editor switches to drawers and sheets. */
export function useNarrow(): boolean {
  return useSyncExternalStore(
    (cb) => {
      const mq = matchMedia(QUERY);
      mq.addEventListener("change", cb);
      return () => mq.removeEventListener("change", cb);
    },
    () => matchMedia(QUERY).matches,
    () => false,
  );
}
