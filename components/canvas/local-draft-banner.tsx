"use client";
/** Offers back the unsaved changes kept in this browser from an earlier visit (local-draft.ts). */
import { History } from "lucide-react";
import type { LocalDraft } from "./local-draft";

export function LocalDraftBanner({ draft, version, onRestore, onDiscard }: { draft: LocalDraft; version: number; onRestore: () => void; onDiscard: () => void }) {
  const when = new Date(draft.at);
  const since = draft.basedOn !== version ? ` Version ${version} was saved since (yours were made on version ${draft.basedOn}): saving them asks before replacing it.` : "";
  return (
    <div role="alert" data-testid="local-draft" className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-amber-300 bg-amber-50 px-4 py-2 text-sm text-amber-950">
      <History size={15} aria-hidden />
      <span>
        Unsaved changes from{" "}
        <time dateTime={when.toISOString()} title={when.toString()}>
          {when.toLocaleString()}
        </time>{" "}
        were kept in this browser.{since}
        {draft.secretsLeftOut?.length ? ` Secrets are never kept in the browser: type them again in ${draft.secretsLeftOut.join(", ")} before saving.` : ""}
      </span>
      <span className="ml-auto flex gap-2">
        <button type="button" className="btn btn-primary btn-sm" data-testid="restore-draft" onClick={onRestore}>
          Restore them
        </button>
        <button type="button" className="btn btn-sm" data-testid="discard-draft" onClick={onDiscard}>
          Discard
        </button>
      </span>
    </div>
  );
}
