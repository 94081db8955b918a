"use client";
/**
 * Light/dark theme: the system preference by default, or the user's choice kept per browser in localStorage.
 * The `dark` class on <html> drives Tailwind's `dark:` variant and the palette swap in app/globals.css;
 * THEME_SCRIPT (theme-script.ts) sets it before the first paint (no flash), `useTheme` keeps it in step afterwards.
 */
import { useCallback, useSyncExternalStore } from "react";
import { THEME_KEY } from "./theme-script";

export type ThemePreference = "system" | "light" | "dark";
export type ResolvedTheme = "light" | "dark";

const CHANGE = "conveyor:theme-change";

function readPreference(): ThemePreference {
  try {
    const p = localStorage.getItem(THEME_KEY);
    return p === "light" || p === "dark" ? p : "system";
  } catch {
    return "system";
  }
}

const systemDark = () => typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches;

function apply(pref: ThemePreference) {
  const dark = pref === "dark" || (pref === "system" && systemDark());
  const el = document.documentElement;
  el.classList.toggle("dark", dark);
  el.style.colorScheme = dark ? "dark" : "light";
}

function subscribe(onChange: () => void) {
  const mq = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : null;
  const onSystem = () => {
    apply(readPreference());
    onChange();
  };
  const onStorage = (e: StorageEvent) => e.key === THEME_KEY && onSystem();
  mq?.addEventListener("change", onSystem);
  window.addEventListener(CHANGE, onChange);
  window.addEventListener("storage", onStorage);
  return () => {
    mq?.removeEventListener("change", onSystem);
    window.removeEventListener(CHANGE, onChange);
    window.removeEventListener("storage", onStorage);
  };
}

const snapshot = () => `${readPreference()}|${document.documentElement.classList.contains("dark") ? "dark" : "light"}`;
const serverSnapshot = () => "system|light";

export function setThemePreference(pref: ThemePreference) {
  try {
    if (pref === "system") localStorage.removeItem(THEME_KEY);
    else localStorage.setItem(THEME_KEY, pref);
  } catch {
    /* private mode: the choice lasts for this page only */
  }
  apply(pref);
  window.dispatchEvent(new Event(CHANGE));
}

export function useTheme(): { preference: ThemePreference; resolved: ResolvedTheme; setPreference: (p: ThemePreference) => void } {
  const [preference, resolved] = useSyncExternalStore(subscribe, snapshot, serverSnapshot).split("|") as [ThemePreference, ResolvedTheme];
  const setPreference = useCallback((p: ThemePreference) => setThemePreference(p), []);
  return { preference, resolved, setPreference };
}
