"use client";
import { Check, Copy } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";

export async function copyText(text: string) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

export function CopyButton({ text, label, testId }: { text: string; label: string; testId?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      className="btn btn-sm shrink-0"
      data-testid={testId}
      aria-label={label}
      onClick={async () => {
        if (await copyText(text)) {
          setDone(true);
          toast.success("Copied to the clipboard");
          setTimeout(() => setDone(false), 1500);
        } else toast.error("The browser refused clipboard access; select the text and copy it.");
      }}
    >
      {done ? <Check size={13} aria-hidden /> : <Copy size={13} aria-hidden />} {done ? "Copied" : "Copy"}
    </button>
  );
}
