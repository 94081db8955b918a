"use client";
/**
 * Retrying a failed or cancelled run from the run view. When the automation was saved since the run
 * started, two ways are offered (as n8n does): the version the run started on (the same run continues)
 * or the current version (a new run that reuses the succeeded steps). Feedback is immediate: the same
 * run turns queued on screen and is followed live; a new run opens at once and is followed live.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { RotateCcw } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc-provider";

export function RetryActions({
  workspaceId,
  run,
  currentVersion,
}: {
  workspaceId: string;
  run: { id: string; status: string; mode: string; version: number; retriedBy: string | null };
  currentVersion?: number;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const router = useRouter();
  const retry = useMutation(trpc.runs.retry.mutationOptions());
  if (run.retriedBy) {
    return (
      <p className="text-xs" data-testid="retried-by">
        Retried as{" "}
        <Link className="font-mono underline" href={`/w/${workspaceId}/runs/${run.retriedBy}`}>
          {run.retriedBy}
        </Link>
      </p>
    );
  }
  // Until the automation's current version is known, offering one button could retry the wrong way.
  if (run.mode === "test" || (run.status !== "failed" && run.status !== "cancelled") || currentVersion === undefined) return null;
  const newer = currentVersion !== undefined && currentVersion !== run.version;
  const go = async (version: "original" | "current") => {
    try {
      const next = await retry.mutateAsync({ workspaceId, runId: run.id, version });
      if (next.id === run.id) {
        // The same run continues: show it queued now (polling resumes), then refetch it.
        qc.setQueryData(trpc.runs.get.queryKey({ workspaceId, runId: run.id }), (old) => (old ? { ...old, ...next, steps: old.steps } : old));
        await qc.invalidateQueries({ queryKey: trpc.runs.get.queryKey({ workspaceId, runId: run.id }) });
        toast.success(`Retrying from the failed step on version ${next.version}.`);
      } else {
        toast.success(`Retry started on version ${next.version}: run ${next.id}.`);
        router.push(`/w/${workspaceId}/runs/${next.id}`);
      }
    } catch (e) {
      toast.error((e as Error).message);
    }
  };
  const busy = retry.isPending;
  if (!newer) {
    return (
      <button className="btn btn-sm btn-primary" data-testid="retry-run" disabled={busy} onClick={() => go("original")}>
        <RotateCcw size={13} aria-hidden className={busy ? "animate-spin" : undefined} /> {busy ? "Retrying…" : "Retry from failed step"}
      </button>
    );
  }
  return (
    <div role="group" aria-label="Retry from the failed step" className="flex gap-1.5">
      <button
        className="btn btn-sm"
        data-testid="retry-original"
        disabled={busy}
        title={`The same run continues on version ${run.version}, the version it started on`}
        onClick={() => go("original")}
      >
        <RotateCcw size={13} aria-hidden /> Retry with v{run.version} (original)
      </button>
      <button
        className="btn btn-sm btn-primary"
        data-testid="retry-current"
        disabled={busy}
        title={`A new run on version ${currentVersion}: the steps that succeeded are reused, the failed step and what follows run from version ${currentVersion}`}
        onClick={() => go("current")}
      >
        <RotateCcw size={13} aria-hidden className={busy ? "animate-spin" : undefined} /> {busy ? "Retrying…" : `Retry with v${currentVersion} (current)`}
      </button>
    </div>
  );
}
