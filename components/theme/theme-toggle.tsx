"use client";
/** System / Light / Dark switch (a radio group); the choice is kept in this browser. */
import { Monitor, Moon, Sun } from "lucide-react";
import { useTheme, type ThemePreference } from "./theme";

const OPTIONS: Array<{ value: ThemePreference; label: string; Icon: typeof Sun }> = [
  { value: "system", label: "System", Icon: Monitor },
  { value: "light", label: "Light", Icon: Sun },
  { value: "dark", label: "Dark", Icon: Moon },
];

export function ThemeToggle({ className = "" }: { className?: string }) {
  const { preference, setPreference } = useTheme();
  return (
    <div
      role="radiogroup"
      aria-label="Theme"
      className={`inline-flex rounded-md border border-border bg-surface p-0.5 ${className}`}
      data-testid="theme-toggle"
    >
      {OPTIONS.map(({ value, label, Icon }) => (
        <button
          key={value}
          type="button"
          role="radio"
          aria-checked={preference === value}
          aria-label={`${label} theme`}
          title={`${label} theme`}
          data-testid={`theme-${value}`}
          onClick={() => setPreference(value)}
          className={`inline-flex h-6 w-7 items-center justify-center rounded ${preference === value ? "bg-accent-soft text-accent-strong" : "text-muted hover:bg-zinc-100 hover:text-ink"}`}
        >
          <Icon size={13} aria-hidden />
        </button>
      ))}
    </div>
  );
}
