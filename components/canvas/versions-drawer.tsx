"use client";
/** Version history: every save is a version; restoring saves that version's document as the newest one. */
import { useMutation, useQuery } from "@tanstack/react-query";
import { RotateCcw } from "lucide-react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc-provider";
import type { Automation } from "@/server/contracts/automations";
import { Dialog } from "./dialog";

export function VersionsDrawer(p: {
  open: boolean;
  onClose: () => void;
  workspaceId: string;
  automationId: string;
  currentVersion: number;
  dirty: boolean;
  onRestored: (a: Automation) => void;
}) {
  const trpc = useTRPC();
  const versions = useQuery({ ...trpc.automations.versions.queryOptions({ workspaceId: p.workspaceId, automationId: p.automationId }), enabled: p.open });
  const restore = useMutation(trpc.automations.restore.mutationOptions());
  return (
    <Dialog open={p.open} onClose={p.onClose} title="Version history" wide>
      {versions.isLoading && <p className="text-sm text-muted">Loading…</p>}
      <ol className="divide-y divide-border" data-testid="versions-list">
        {versions.data?.map((v) => (
          <li key={v.version} className="flex items-center gap-3 py-2.5">
            <span className="badge border-border font-mono">v{v.version}</span>
            <div className="min-w-0 flex-1">
              <div className="truncate text-sm font-medium">{v.name}</div>
              <div className="text-xs text-muted">
                {new Date(v.createdAt).toLocaleString()} · {v.createdBy?.replace(/^user:/, "") ?? "unknown"} · {v.graph.nodes.length} nodes
              </div>
            </div>
            {v.version === p.currentVersion ? (
              <span className="text-xs font-medium text-success">Current</span>
            ) : (
              <button
                className="btn btn-sm"
                disabled={restore.isPending}
                onClick={async () => {
                  if (p.dirty && !confirm("Restoring discards your unsaved changes. Continue?")) return;
                  try {
                    const a = await restore.mutateAsync({ workspaceId: p.workspaceId, automationId: p.automationId, version: v.version });
                    toast.success(`Restored v${v.version} as v${a.version}`);
                    p.onRestored(a);
                    p.onClose();
                  } catch (e) {
                    toast.error((e as Error).message);
                  }
                }}
              >
                <RotateCcw size={13} aria-hidden /> Restore
              </button>
            )}
          </li>
        ))}
      </ol>
    </Dialog>
  );
}
