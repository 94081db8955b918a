"use client";
/** Text, textarea, number, duration, date-time, boolean, select, multi-select and secret inputs. */
import { Eye, EyeOff } from "lucide-react";
import { useState } from "react";

interface Common {
  id: string;
  value: unknown;
  onChange: (v: unknown) => void;
  invalid?: boolean;
  describedBy?: string;
  placeholder?: string;
  disabled?: boolean;
}

const aria = (p: Common) => ({ id: p.id, "aria-invalid": p.invalid || undefined, "aria-describedby": p.describedBy, disabled: p.disabled });

export function TextInput(p: Common & { multiline?: boolean; mono?: boolean; type?: string }) {
  const value = p.value === undefined || p.value === null ? "" : String(p.value);
  if (p.multiline)
    return (
      <textarea
        {...aria(p)}
        className={`input min-h-20 ${p.mono ? "font-mono text-xs" : ""}`}
        value={value}
        placeholder={p.placeholder}
        onChange={(e) => p.onChange(e.target.value)}
      />
    );
  return (
    <input
      {...aria(p)}
      type={p.type ?? "text"}
      className={`input ${p.mono ? "font-mono text-xs" : ""}`}
      value={value}
      placeholder={p.placeholder}
      onChange={(e) => p.onChange(e.target.value)}
    />
  );
}

export function NumberInput(p: Common & { integer?: boolean }) {
  const shown = p.value === undefined || p.value === null ? "" : String(p.value);
  return (
    <input
      {...aria(p)}
      inputMode={p.integer ? "numeric" : "decimal"}
      className="input"
      value={shown}
      placeholder={p.placeholder}
      onChange={(e) => {
        const t = e.target.value.trim();
        // Keep what the user typed until it is a clean number (so "1." or "-" can be typed).
        p.onChange(t === "" ? undefined : String(Number(t)) === t ? Number(t) : e.target.value);
      }}
    />
  );
}

/** ISO 8601 value edited with the browser's local date-time picker. */
export function DateTimeInput(p: Common) {
  const iso = typeof p.value === "string" ? p.value : "";
  const local = iso && !Number.isNaN(Date.parse(iso)) ? new Date(Date.parse(iso) - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : "";
  return (
    <input
      {...aria(p)}
      type="datetime-local"
      className="input"
      value={local}
      onChange={(e) => p.onChange(e.target.value ? new Date(e.target.value).toISOString() : undefined)}
    />
  );
}

export function BooleanInput(p: Common & { label: string }) {
  const on = p.value === true;
  return (
    <button
      type="button"
      role="switch"
      aria-checked={on}
      aria-label={p.label}
      id={p.id}
      disabled={p.disabled}
      aria-describedby={p.describedBy}
      onClick={() => p.onChange(!on)}
      className={`relative inline-flex h-5 w-9 shrink-0 items-center rounded-full transition-colors ${on ? "bg-accent" : "bg-zinc-300"}`}
    >
      <span className={`inline-block h-4 w-4 rounded-full bg-white shadow transition-transform ${on ? "translate-x-4" : "translate-x-0.5"}`} />
    </button>
  );
}

export function SelectInput(p: Common & { options: Array<{ value: string; label: string }>; required?: boolean }) {
  return (
    <select
      {...aria(p)}
      className="input"
      value={p.value === undefined || p.value === null ? "" : String(p.value)}
      onChange={(e) => p.onChange(e.target.value === "" ? undefined : e.target.value)}
    >
      <option value="">{p.required ? "Choose…" : "— none —"}</option>
      {p.options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.label}
        </option>
      ))}
    </select>
  );
}

export function MultiSelectInput(p: Common & { options: Array<{ value: string; label: string }> }) {
  const chosen = new Set(Array.isArray(p.value) ? (p.value as unknown[]).map(String) : []);
  return (
    <div id={p.id} role="group" aria-describedby={p.describedBy} className="flex flex-wrap gap-1.5">
      {p.options.map((o) => {
        const on = chosen.has(o.value);
        return (
          <button
            key={o.value}
            type="button"
            aria-pressed={on}
            disabled={p.disabled}
            onClick={() => p.onChange(p.options.map((x) => x.value).filter((v) => (v === o.value ? !on : chosen.has(v))))}
            className={`rounded-full border px-2.5 py-0.5 text-xs font-medium ${on ? "border-accent bg-accent-soft text-accent-strong" : "border-border bg-surface text-zinc-700 hover:bg-zinc-50"}`}
          >
            {o.label}
          </button>
        );
      })}
    </div>
  );
}

/** Masked input. An existing secret is never sent to the browser; the server answers `{ set: true }`. */
export function SecretInput(p: Common) {
  const [shown, setShown] = useState(false);
  const isSet = typeof p.value === "object" && p.value !== null && (p.value as { set?: boolean }).set;
  return (
    <div className="flex gap-1">
      <input
        {...aria(p)}
        type={shown ? "text" : "password"}
        autoComplete="new-password"
        className="input font-mono"
        placeholder={isSet ? "•••••••• (saved — type to replace)" : p.placeholder}
        value={typeof p.value === "string" ? p.value : ""}
        onChange={(e) => p.onChange(e.target.value)}
      />
      <button type="button" className="btn btn-ghost btn-sm" aria-label={shown ? "Hide value" : "Show value"} onClick={() => setShown(!shown)}>
        {shown ? <EyeOff size={14} /> : <Eye size={14} />}
      </button>
    </div>
  );
}
