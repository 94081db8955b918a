"use client";
import type { ReactNode } from "react";

export interface FieldShellProps {
  id: string;
  path: string;
  label: string;
  required?: boolean;
  help?: string;
  error?: string | null;
  /** A server warning (shown when there is no error; never blocks). */
  warning?: string | null;
  /** Rendered at the right of the label (e.g. the expression toggle). */
  aside?: ReactNode;
  /** Use a fieldset/legend for groups of inputs. */
  group?: boolean;
  children: ReactNode;
}

/** Label + control + help + error for one generated field. The wrapper carries `data-testid="field-<path>"`. */
export function FieldShell({ id, path, label, required, help, error, warning, aside, group, children }: FieldShellProps) {
  const labelEl = (
    <span className="flex items-center gap-1">
      {label}
      {required && (
        <span className="text-danger" aria-hidden>
          *
        </span>
      )}
      {required && <span className="sr-only">(required)</span>}
    </span>
  );
  // Groups of controls (lists, chips, key-value rows) are named by their label through aria-labelledby.
  return (
    <div
      data-testid={`field-${path}`}
      data-invalid={error ? "true" : undefined}
      className="min-w-0"
      role={group ? "group" : undefined}
      aria-labelledby={group ? `${id}-label` : undefined}
    >
      <div className="mb-1 flex items-center justify-between gap-2">
        {group ? (
          <span id={`${id}-label`} className="label mb-0">
            {labelEl}
          </span>
        ) : (
          <label htmlFor={id} className="label mb-0">
            {labelEl}
          </label>
        )}
        {aside}
      </div>
      {children}
      {help && !error && (
        <p id={`${id}-help`} className="help">
          {help}
        </p>
      )}
      {warning && !error && (
        <p id={`${id}-warning`} role="status" className="mt-1 text-xs text-amber-800" data-testid={`warning-${path}`}>
          {warning}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} role="alert" className="field-error" data-testid={`error-${path}`}>
          {error}
        </p>
      )}
    </div>
  );
}

export function describedBy(id: string, help?: string, error?: string | null) {
  return error ? `${id}-error` : help ? `${id}-help` : undefined;
}
