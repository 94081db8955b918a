"use client";
/**
 * The sidebar's Runs item with a badge of the runs that failed in the last 24 hours (on-call: overnight
 * failures at a glance); with failures it links to the runs list filtered to failed runs.
 */
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { Activity } from "lucide-react";
import { useTRPC } from "@/components/providers/trpc-provider";

/** Slower than the list pages' 10 s: a count over the last day needs no more, and it is on every page. */
const REFRESH_MS = 30_000;

export function RunsNavLink({ base, workspaceId, active, className, onNavigate }: { base: string; workspaceId: string; active: boolean; className: string; onNavigate: () => void }) {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.runs.failedRecently.queryOptions({ workspaceId }), refetchInterval: REFRESH_MS });
  const failed = q.data?.failed ?? 0;
  const shown = q.data?.more ? "99+" : String(failed);
  const label = failed > 0 ? `Runs, ${q.data?.more ? "more than 99" : failed} failed in the last 24 hours` : undefined;
  return (
    <Link
      href={failed > 0 ? `${base}/runs?status=failed` : `${base}/runs`}
      onClick={onNavigate}
      aria-current={active ? "page" : undefined}
      aria-label={label}
      title={label}
      className={className}
    >
      <Activity size={16} aria-hidden /> Runs
      {failed > 0 && (
        <span aria-hidden data-testid="runs-failed-badge" className="ml-auto rounded-full bg-red-600 px-1.5 py-px text-xs font-medium leading-4 text-white tabular-nums">
          {shown}
        </span>
      )}
    </Link>
  );
}
