"use client";
/** Runs of a workspace (optionally one automation): status, trigger, started, duration; filters; live refresh. */
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useTRPC } from "@/components/providers/trpc-provider";
import { RunStatusBadge } from "./run-status-badge";
import { formatDuration, formatMs } from "./format";
import { RunStarted } from "./run-timing";
import { DatabaseUnavailable, isDatabaseUnavailableError } from "@/components/errors/database-unavailable";

const STATUSES = ["queued", "running", "waiting", "succeeded", "failed", "cancelled"] as const;

export function RunList({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const automationId = params.get("automationId") ?? undefined;
  const status = (params.get("status") ?? undefined) as (typeof STATUSES)[number] | undefined;
  const setParam = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    router.replace(`${pathname}?${next}`);
  };
  const automations = useQuery(trpc.automations.list.queryOptions({ workspaceId, limit: 200 }));
  const runs = useInfiniteQuery({
    ...trpc.runs.list.infiniteQueryOptions({ workspaceId, automationId, status, limit: 50 }, { getNextPageParam: (last) => last.nextCursor ?? undefined }),
    refetchInterval: 3000,
  });
  const nameOf = (id: string) => automations.data?.data.find((a) => a.id === id)?.name ?? id;
  const rows = runs.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <div className="page">
      <div className="page-header">
        <div>
          <h1>Runs</h1>
          <p className="text-sm text-muted">Every execution, newest first. Running runs update live.</p>
        </div>
        <div className="flex items-center gap-2">
          <label htmlFor="runs-automation" className="sr-only">
            Automation
          </label>
          <select id="runs-automation" className="input w-56" value={automationId ?? ""} onChange={(e) => setParam("automationId", e.target.value)}>
            <option value="">All automations</option>
            {automations.data?.data.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
          <label htmlFor="runs-status" className="sr-only">
            Status
          </label>
          <select id="runs-status" className="input w-36" value={status ?? ""} onChange={(e) => setParam("status", e.target.value)}>
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s[0]!.toUpperCase() + s.slice(1)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <DatabaseUnavailable errors={[runs.error, automations.error]} />
      <div className="card relative overflow-x-auto">
        <table className="table">
          <thead>
            <tr>
              <th>Status</th>
              <th>Automation</th>
              {/* Below 768 px these four fold into the automation's cell (a phone saw only status and name without scrolling sideways). */}
              <th className="max-md:hidden">Trigger</th>
              <th className="max-md:hidden">Started</th>
              <th className="max-md:hidden">Working time</th>
              <th className="max-md:hidden">Error</th>
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 && (
              <tr>
                <td colSpan={6} className="py-10 text-center text-muted" data-testid="runs-empty">
                  {runs.isLoading
                    ? "Loading runs…"
                    : runs.isError
                      ? isDatabaseUnavailableError(runs.error)
                        ? "Waiting for the database…"
                        : `Could not load runs: ${runs.error.message}`
                      : automationId || status
                        ? "No runs match these filters."
                        : "No runs yet. A run starts when a trigger fires, or when you run an automation from its editor."}
                </td>
              </tr>
            )}
            {rows.map((r) => (
              <tr
                key={r.id}
                className="cursor-pointer hover:bg-zinc-50"
                onClick={() => router.push(`/w/${workspaceId}/runs/${r.id}`)}
                data-testid={`run-row-${r.id}`}
              >
                <td>
                  <Link href={`/w/${workspaceId}/runs/${r.id}`} onClick={(e) => e.stopPropagation()} aria-label={`Run ${r.id}`}>
                    <RunStatusBadge status={r.status} />
                  </Link>
                </td>
                {/* wrap-anywhere: a long name, path or id breaks inside the cell rather than widening the table past a phone's edge. */}
                <td className="font-medium max-md:wrap-anywhere">
                  {nameOf(r.automationId)} <span className="font-mono text-xs text-muted">v{r.version}</span>
                  <div className="mt-0.5 text-xs font-normal text-muted md:hidden" data-testid="run-narrow-summary">
                    <span className="font-mono text-zinc-700">{r.trigger.name ?? r.trigger.nodeId}</span>
                    {r.mode === "test" ? " · test" : ""} · <RunStarted run={r} relative />
                  </div>
                  {r.error && (
                    <div className="mt-0.5 line-clamp-3 text-xs font-normal text-danger md:hidden" data-testid="run-narrow-error">
                      {r.error.message}
                    </div>
                  )}
                </td>
                <td className="text-xs text-muted max-md:hidden" data-testid="run-trigger">
                  <span className="font-mono text-zinc-700">{r.trigger.name ?? r.trigger.nodeId}</span>
                  {r.taskId ? " · task step" : ""}
                  {r.retryOf ? " · retry" : ""}
                  {r.mode === "test" && (
                    <span className="ml-1 rounded bg-violet-50 px-1 text-violet-800" data-testid="run-test-tag">
                      test
                    </span>
                  )}
                </td>
                <td className="text-xs max-md:hidden" data-testid="run-started">
                  <RunStarted run={r} stacked />
                </td>
                {/* Working time: the waits between retries are not run time (the run view shows them apart). */}
                <td className="text-xs tabular-nums max-md:hidden" title={`From start to end: ${formatDuration(r.startedAt, r.finishedAt)}`}>
                  {r.finishedAt && r.workMs !== undefined ? formatMs(r.workMs) : formatDuration(r.startedAt, r.finishedAt)}
                </td>
                <td className="max-w-xs truncate text-xs text-danger max-md:hidden" title={r.error?.message}>
                  {r.error?.message}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {runs.hasNextPage && (
        <button className="btn mt-3" onClick={() => runs.fetchNextPage()}>
          {runs.isFetchingNextPage ? "Loading…" : "Load more"}
        </button>
      )}
    </div>
  );
}
