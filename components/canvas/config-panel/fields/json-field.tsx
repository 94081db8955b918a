"use client";
/** Free JSON (extra properties, custom fields). Parses as the user types; invalid text is kept and flagged. */
import { useState } from "react";

export function JsonField({
  id,
  value,
  onChange,
  describedBy,
  onError,
}: {
  id: string;
  value: unknown;
  onChange: (v: unknown) => void;
  describedBy?: string;
  onError: (m: string | null) => void;
}) {
  const [text, setText] = useState(() => (value === undefined ? "" : JSON.stringify(value, null, 2)));
  return (
    <textarea
      id={id}
      aria-describedby={describedBy}
      spellCheck={false}
      className="input min-h-24 font-mono text-xs"
      value={text}
      placeholder="{ }"
      onChange={(e) => {
        setText(e.target.value);
        if (e.target.value.trim() === "") {
          onError(null);
          onChange(undefined);
          return;
        }
        try {
          onChange(JSON.parse(e.target.value));
          onError(null);
        } catch (err) {
          onError(`Not valid JSON: ${(err as Error).message}`);
        }
      }}
    />
  );
}
