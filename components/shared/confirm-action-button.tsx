"use client";
/**
 * A row action that asks first (Revoke, Delete): confirm → run the mutation → toast → refresh the list.
 * Pages pass their own words; the button stays disabled while the action runs so a double click sends it once.
 */
import { useState } from "react";
import { toast } from "sonner";

export function ConfirmActionButton({
  confirm: question,
  action,
  onSettled,
  success,
  failure = (message) => message,
  className = "btn btn-sm",
  label,
  children,
}: {
  /** The question the native confirm asks; nothing happens when the user dismisses it. */
  confirm: string;
  action: () => Promise<unknown>;
  /** Runs after success or failure (typically: invalidate the list's query). */
  onSettled?: () => unknown;
  /** A toast on success; none when omitted (the row's own change shows it). */
  success?: string;
  /** The toast on failure, from the error's message. */
  failure?: (message: string) => string;
  className?: string;
  /** The accessible name when the visible content is an icon or is ambiguous across rows. */
  label?: string;
  children: React.ReactNode;
}) {
  const [pending, setPending] = useState(false);
  return (
    <button
      type="button"
      className={className}
      aria-label={label}
      disabled={pending}
      onClick={async () => {
        if (!window.confirm(question)) return;
        setPending(true);
        try {
          await action();
          if (success) toast.success(success);
        } catch (e) {
          toast.error(failure((e as Error).message));
        } finally {
          try {
            await onSettled?.();
          } finally {
            setPending(false);
          }
        }
      }}
    >
      {children}
    </button>
  );
}
