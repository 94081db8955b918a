"use client";
/** Usage: runs and steps per day by status (stacked bars), plus window totals. */
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useTRPC } from "@/components/providers/trpc-provider";
import { DatabaseUnavailable, isDatabaseUnavailableError } from "@/components/errors/database-unavailable";
import { formatMs } from "@/components/runs/format";

const COLORS: Record<string, string> = {
  succeeded: "#16a34a",
  failed: "#dc2626",
  cancelled: "#a1a1aa",
  running: "#2563eb",
  queued: "#d4d4d8",
  waiting: "#d97706",
  skipped: "#e4e4e7",
};
const WINDOWS = [7, 30, 90] as const;

export function UsagePage({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const [days, setDays] = useState<(typeof WINDOWS)[number]>(30);
  const range = useMemo(() => {
    const to = new Date();
    to.setUTCMinutes(0, 0, 0);
    to.setUTCHours(to.getUTCHours() + 1);
    return { from: new Date(to.getTime() - days * 86_400_000).toISOString(), to: to.toISOString() };
  }, [days]);
  const usage = useQuery(trpc.usage.get.queryOptions({ workspaceId, ...range, granularity: "day" }));
  const data = usage.data;
  const series = (kind: "runs" | "steps") => {
    const statuses = new Set<string>();
    const rows = (data?.buckets ?? []).map((b) => {
      const row: Record<string, string | number> = { day: b.start.slice(5, 10) };
      for (const [s, n] of Object.entries(b[kind])) {
        statuses.add(s);
        row[s] = n;
      }
      return row;
    });
    return { rows, statuses: [...statuses] };
  };
  const runs = series("runs");
  const steps = series("steps");
  const sum = (r: Record<string, number> | undefined) => Object.values(r ?? {}).reduce((a, b) => a + b, 0);
  return (
    <div className="page">
      <div className="page-header">
        <div>
          <h1>Usage</h1>
          <p className="text-sm text-muted">Metered activity of this workspace (UTC days).</p>
        </div>
        <div role="group" aria-label="Window" className="inline-flex rounded-md border border-border bg-surface p-0.5">
          {WINDOWS.map((d) => (
            <button
              key={d}
              aria-pressed={days === d}
              onClick={() => setDays(d)}
              className={`rounded px-3 py-1 text-xs font-medium ${days === d ? "bg-accent-soft text-accent-strong" : "text-zinc-600"}`}
            >
              {d} days
            </button>
          ))}
        </div>
      </div>
      <DatabaseUnavailable errors={[usage.error]} />
      {usage.isError && !isDatabaseUnavailableError(usage.error) && <p className="field-error">{usage.error.message}</p>}
      <div className="mb-5 grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-9">
        {[
          ["Runs", sum(data?.totals.runs)],
          ["Steps", sum(data?.totals.steps)],
          // Sub-second spans read "20 ms", not "0 s". Runs retried (by a person or the API) and the waits
          // between automatic step retries (backoff; not the time until someone retried) are two things.
          ["Run time (working)", formatMs(data?.totals.runTimeMs ?? 0)],
          ["Runs retried", data?.totals.retries ?? 0],
          ["Waited between automatic retries", formatMs(data?.totals.retryWaitMs ?? 0)],
          ["Test runs", sum(data?.totals.testRuns)],
          ["Events received", data?.totals.eventsReceived ?? 0],
          ["Tasks created / closed", `${data?.totals.tasksCreated ?? 0} / ${data?.totals.tasksClosed ?? 0}`],
          ["API calls", data?.totals.apiCalls ?? 0],
        ].map(([label, value]) => (
          <div key={label as string} className="card px-4 py-3">
            <div className="text-xs text-muted">{label}</div>
            <div className="text-xl font-semibold tabular-nums">{value}</div>
          </div>
        ))}
      </div>
      <div className="grid gap-4 lg:grid-cols-2">
        <Chart title="Runs per day by status" {...runs} />
        <Chart title="Steps per day by status" {...steps} />
      </div>
    </div>
  );
}

function Chart({ title, rows, statuses }: { title: string; rows: Array<Record<string, string | number>>; statuses: string[] }) {
  return (
    <section className="card p-4" aria-label={title}>
      <h2 className="mb-3">{title}</h2>
      {rows.length === 0 || statuses.length === 0 ? (
        <p className="py-16 text-center text-sm text-muted">No activity in this window.</p>
      ) : (
        <div className="h-64">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={rows}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e4e4e7" />
              <XAxis dataKey="day" tick={{ fontSize: 11 }} />
              <YAxis allowDecimals={false} tick={{ fontSize: 11 }} width={32} />
              <Tooltip />
              <Legend wrapperStyle={{ fontSize: 12 }} />
              {statuses.map((s) => (
                <Bar key={s} dataKey={s} stackId="a" fill={COLORS[s] ?? "#6366f1"} />
              ))}
            </BarChart>
          </ResponsiveContainer>
        </div>
      )}
    </section>
  );
}
