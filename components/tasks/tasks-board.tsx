"use client";
/** Tasks board: columns by status for one line (or all), create, open/close/retry, activity timeline. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc-provider";
import { Dialog } from "@/components/canvas/dialog";
import { fieldProblems } from "@/components/shared/problems";
import { DatabaseUnavailable } from "@/components/errors/database-unavailable";

const COLUMNS = [
  { status: "draft", title: "Draft" },
  { status: "open", title: "Open" },
  { status: "closed", title: "Closed" },
] as const;

type Task = {
  id: string;
  title: string;
  description: string;
  lineId: string;
  status: string;
  outcome: string | null;
  currentStep: number | null;
  createdAt: string;
};

export function TasksBoard({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [lineId, setLineId] = useState("");
  const lines = useQuery(trpc.lines.list.queryOptions({ workspaceId, limit: 200 }));
  const tasks = useQuery({ ...trpc.tasks.list.queryOptions({ workspaceId, lineId: lineId || undefined, limit: 200 }), refetchInterval: 5000 });
  const transition = useMutation(trpc.tasks.transition.mutationOptions());
  const [creating, setCreating] = useState(false);
  const [viewing, setViewing] = useState<Task | null>(null);
  const lineName = (id: string) => lines.data?.data.find((l) => l.id === id)?.name ?? id;
  const stepName = (t: Task) =>
    t.currentStep === null ? null : (lines.data?.data.find((l) => l.id === t.lineId)?.steps[t.currentStep]?.name ?? `step ${t.currentStep + 1}`);
  const act = async (t: Task, tr: Parameters<typeof transition.mutateAsync>[0]["transition"]) => {
    try {
      await transition.mutateAsync({ workspaceId, taskId: t.id, transition: tr });
      qc.invalidateQueries({ queryKey: trpc.tasks.list.queryKey() });
    } catch (e) {
      toast.error((e as Error).message);
    }
  };
  const list = (tasks.data?.data ?? []) as Task[];
  return (
    <div className="page max-w-none">
      <div className="page-header">
        <div>
          <h1>Tasks</h1>
          <p className="text-sm text-muted">Work orders moving along lines; each step runs an automation.</p>
        </div>
        <div className="flex items-center gap-2">
          <label htmlFor="line-filter" className="sr-only">
            Filter by line
          </label>
          <select id="line-filter" className="input w-48" value={lineId} onChange={(e) => setLineId(e.target.value)}>
            <option value="">All lines</option>
            {lines.data?.data.map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
          </select>
          <button className="btn btn-primary" onClick={() => setCreating(true)}>
            <Plus size={15} aria-hidden /> New task
          </button>
        </div>
      </div>
      <DatabaseUnavailable errors={[tasks.error, lines.error]} />
      <div className="grid gap-4 md:grid-cols-3">
        {COLUMNS.map((c) => {
          const items = list.filter((t) => t.status === c.status);
          return (
            <section key={c.status} aria-label={c.title} className="rounded-lg bg-zinc-100/70 p-2.5">
              <h2 className="mb-2 flex items-center justify-between px-1 text-sm">
                {c.title} <span className="text-xs font-normal text-muted">{items.length}</span>
              </h2>
              <ul className="space-y-2">
                {items.map((t) => (
                  <li key={t.id} className="card p-3">
                    <button className="block w-full text-left" onClick={() => setViewing(t)}>
                      <div className="font-medium">{t.title}</div>
                      <div className="mt-0.5 text-xs text-muted">
                        {lineName(t.lineId)}
                        {stepName(t) ? ` · ${stepName(t)}` : ""}
                      </div>
                    </button>
                    <div className="mt-2 flex flex-wrap items-center gap-1">
                      {t.outcome && (
                        <span
                          className={`badge ${t.outcome === "completed" ? "border-green-200 bg-green-50 text-green-700" : t.outcome === "failed" ? "border-red-200 bg-red-50 text-danger" : "border-zinc-200"}`}
                        >
                          {t.outcome}
                        </span>
                      )}
                      {t.status === "draft" && (
                        <button className="btn btn-sm" onClick={() => act(t, { action: "open" })}>
                          Open
                        </button>
                      )}
                      {t.status === "open" && (
                        <button className="btn btn-sm" onClick={() => act(t, { action: "close", outcome: "completed" })}>
                          Complete
                        </button>
                      )}
                      {t.status === "open" && (
                        <button className="btn btn-sm" onClick={() => act(t, { action: "close", outcome: "rejected" })}>
                          Reject
                        </button>
                      )}
                      {t.outcome === "failed" && (
                        <button className="btn btn-sm" onClick={() => act(t, { action: "retry" })}>
                          Retry step
                        </button>
                      )}
                    </div>
                  </li>
                ))}
                {items.length === 0 && <li className="px-1 py-4 text-center text-xs text-muted">Nothing here.</li>}
              </ul>
            </section>
          );
        })}
      </div>
      <NewTaskDialog open={creating} onClose={() => setCreating(false)} workspaceId={workspaceId} lines={lines.data?.data ?? []} defaultLine={lineId} />
      <TaskActivityDialog task={viewing} onClose={() => setViewing(null)} workspaceId={workspaceId} />
    </div>
  );
}

function NewTaskDialog({
  open,
  onClose,
  workspaceId,
  lines,
  defaultLine,
}: {
  open: boolean;
  onClose: () => void;
  workspaceId: string;
  lines: Array<{ id: string; name: string }>;
  defaultLine: string;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const create = useMutation(trpc.tasks.create.mutationOptions());
  const [title, setTitle] = useState("");
  const [description, setDescription] = useState("");
  const [lineId, setLineId] = useState(defaultLine);
  const [data, setData] = useState("{}");
  const [openNow, setOpenNow] = useState(true);
  const [jsonError, setJsonError] = useState<string | null>(null);
  const problems = fieldProblems(create.error);
  return (
    <Dialog open={open} onClose={onClose} title="New task">
      <form
        className="space-y-4"
        onSubmit={async (e) => {
          e.preventDefault();
          let parsed: unknown;
          try {
            parsed = data.trim() ? JSON.parse(data) : undefined;
            setJsonError(null);
          } catch (err) {
            return setJsonError((err as Error).message);
          }
          try {
            await create.mutateAsync({ workspaceId, title, description, lineId: lineId || undefined, data: parsed, status: openNow ? "open" : "draft" });
            qc.invalidateQueries({ queryKey: trpc.tasks.list.queryKey() });
            setTitle("");
            setDescription("");
            onClose();
          } catch {
            /* shown on fields */
          }
        }}
      >
        <div>
          <label htmlFor="task-title" className="label">
            Title
          </label>
          <input id="task-title" className="input" value={title} onChange={(e) => setTitle(e.target.value)} required />
          {problems.title && <p className="field-error">{problems.title}</p>}
        </div>
        <div>
          <label htmlFor="task-desc" className="label">
            Description
          </label>
          <textarea id="task-desc" className="input" value={description} onChange={(e) => setDescription(e.target.value)} />
        </div>
        <div>
          <label htmlFor="task-line" className="label">
            Line
          </label>
          <select id="task-line" className="input" value={lineId} onChange={(e) => setLineId(e.target.value)}>
            <option value="">Default line</option>
            {lines.map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
          </select>
          {problems.lineId && <p className="field-error">{problems.lineId}</p>}
        </div>
        <div>
          <label htmlFor="task-data" className="label">
            Data (JSON)
          </label>
          <textarea id="task-data" className="input font-mono text-xs" value={data} onChange={(e) => setData(e.target.value)} />
          {(jsonError ?? problems.data) && <p className="field-error">{jsonError ?? problems.data}</p>}
        </div>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={openNow} onChange={(e) => setOpenNow(e.target.checked)} /> Open now (starts the first step)
        </label>
        {create.error && !Object.keys(problems).length && <p className="field-error">{create.error.message}</p>}
        <button className="btn btn-primary" disabled={create.isPending}>
          Create task
        </button>
      </form>
    </Dialog>
  );
}

function TaskActivityDialog({ task, onClose, workspaceId }: { task: Task | null; onClose: () => void; workspaceId: string }) {
  const trpc = useTRPC();
  const activity = useQuery({ ...trpc.tasks.activity.queryOptions({ workspaceId, taskId: task?.id ?? "", limit: 200 }), enabled: !!task });
  return (
    <Dialog open={!!task} onClose={onClose} title={task?.title ?? "Task"} wide>
      {task?.description && <p className="mb-3 text-sm text-zinc-700">{task.description}</p>}
      <ol className="relative space-y-3 border-l border-border pl-4">
        {(activity.data?.data ?? []).map((a) => {
          const e = a as { id: string; at: string; kind: string; message?: string | null; runId?: string | null; actor?: string | null };
          return (
            <li key={e.id} className="text-sm">
              <span className="absolute -left-1.5 mt-1.5 h-3 w-3 rounded-full border-2 border-white bg-accent" aria-hidden />
              <div className="flex items-center gap-2">
                <span className="font-medium">{e.kind.replace(/_/g, " ")}</span>
                <time className="text-xs text-muted">{new Date(e.at).toLocaleString()}</time>
              </div>
              {e.message && <p className="text-zinc-700">{e.message}</p>}
              {e.runId && (
                <Link className="text-xs text-accent underline" href={`/w/${workspaceId}/runs/${e.runId}`}>
                  View run
                </Link>
              )}
            </li>
          );
        })}
      </ol>
    </Dialog>
  );
}
