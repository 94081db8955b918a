"use client";
/**
 * "Managed in Git" banner for an automation applied from files (`conveyor apply`), and a confirm at
 * the first edit on the canvas: a change made here makes the next apply refuse (unless forced), so the
 * user either undoes it or goes on knowingly (then exports it back to the repository).
 */
import { GitBranch } from "lucide-react";
import { useState } from "react";
import { Dialog } from "@/components/canvas/dialog";
import { useCanvasStore } from "@/components/canvas/canvas-store";
import type { ManagedSourceView } from "@/server/contracts/automations";

const ackKey = (automationId: string) => `conveyor:git-edit-ok:${automationId}`;

export function ManagedInGitBanner({
  automationId,
  source,
  version,
  readOnly,
}: {
  automationId: string;
  source: ManagedSourceView | null;
  version: number;
  readOnly?: boolean;
}) {
  const dirty = useCanvasStore((s) => s.dirty);
  const [acknowledged, setAcknowledged] = useState(() => typeof window !== "undefined" && !!sessionStorage.getItem(ackKey(automationId)));
  // Asked at the first edit (the canvas becomes dirty), until the user undoes it or goes on.
  const asking = !!source && !readOnly && dirty && !acknowledged;
  if (!source) return null;
  const where = `${source.path ?? "files"}${source.commit ? `@${source.commit.slice(0, 12)}` : ""}`;
  const drifted = source.appliedVersion !== null && source.appliedVersion !== version;
  const undo = () => {
    const s = useCanvasStore.getState();
    const backToSaved = s.past.length <= 1;
    s.undo();
    if (backToSaved) s.markSaved();
    else setAcknowledged(true); // edits from before (a restored draft): nothing to undo to
  };
  const editAnyway = () => {
    sessionStorage.setItem(ackKey(automationId), "1");
    setAcknowledged(true);
  };
  return (
    <>
      <div
        role="status"
        data-testid="managed-in-git"
        className="flex flex-wrap items-center gap-x-2 gap-y-1 border-b border-amber-200 bg-amber-50 px-4 py-1.5 text-xs text-amber-900"
      >
        <GitBranch size={13} aria-hidden />
        <span className="font-medium">Managed in Git ({where})</span>
        <span className="text-amber-800">
          applied {new Date(source.appliedAt).toLocaleString()} by {source.appliedBy}
          {source.repository ? ` from ${source.repository}` : ""}.
        </span>
        <span className="text-amber-800">
          {drifted
            ? `Changed here since that apply (version ${source.appliedVersion} → ${version}): export it to the repository, or the next apply refuses unless --force.`
            : "Change the file and apply it; edits made here make the next apply refuse unless --force."}
        </span>
      </div>
      {/* Closing the dialog (Esc) undoes; it also "closes" once answered, when there is nothing left to ask. */}
      <Dialog open={asking} onClose={() => asking && undo()} title="Edit an automation managed in Git?">
        <p className="text-sm">
          This automation is applied from <code>{where}</code>. If you change it here, the next <code>conveyor apply</code> refuses until the change is exported
          back to the repository (<code>conveyor export</code>) or overwritten with <code>--force</code>.
        </p>
        <div className="mt-4 flex justify-end gap-2">
          <button type="button" className="btn btn-sm" onClick={undo}>
            Undo my change
          </button>
          <button type="button" className="btn btn-primary btn-sm" onClick={editAnyway}>
            Edit here anyway
          </button>
        </div>
      </Dialog>
    </>
  );
}
