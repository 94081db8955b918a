"use client";
/** Lines: ordered steps, each naming an automation. Create, edit (add/remove/reorder steps), delete. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ArrowDown, ArrowUp, Plus, Rows3, Trash2 } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc-provider";
import { Dialog } from "@/components/canvas/dialog";
import { fieldProblems } from "@/components/shared/problems";

type Line = { id: string; name: string; steps: Array<{ name: string; appId: string }>; openTasks?: number };

export function LinesPage({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const lines = useQuery(trpc.lines.list.queryOptions({ workspaceId, limit: 200 }));
  const automations = useQuery(trpc.automations.list.queryOptions({ workspaceId, limit: 200 }));
  const del = useMutation(trpc.lines.delete.mutationOptions());
  const [editing, setEditing] = useState<Line | "new" | null>(null);
  const nameOf = (id: string) => automations.data?.data.find((a) => a.id === id)?.name ?? id;
  return (
    <div className="page">
      <div className="page-header">
        <div>
          <h1>Lines</h1>
          <p className="text-sm text-muted">Assembly lines: a task placed on a line runs each step’s automation in turn.</p>
        </div>
        <button className="btn btn-primary" onClick={() => setEditing("new")} data-testid="new-line">
          <Plus size={15} aria-hidden /> New line
        </button>
      </div>
      {lines.data?.data.length === 0 && (
        <div className="card flex flex-col items-center gap-2 px-6 py-14 text-center">
          <Rows3 size={28} className="text-accent" aria-hidden />
          <h2>No lines yet</h2>
          <p className="text-sm text-muted">A line lists the automations a task goes through, in order.</p>
        </div>
      )}
      <ul className="space-y-3">
        {(lines.data?.data as Line[] | undefined)?.map((l) => (
          <li key={l.id} className="card p-4">
            <div className="flex items-center justify-between gap-3">
              <div>
                <h2>{l.name}</h2>
                <p className="text-xs text-muted">
                  {l.steps.length} step{l.steps.length === 1 ? "" : "s"}
                  {l.openTasks ? ` · ${l.openTasks} open task(s)` : ""}
                </p>
              </div>
              <div className="flex gap-1.5">
                <button className="btn btn-sm" onClick={() => setEditing(l)}>
                  Edit
                </button>
                <button
                  className="btn btn-sm btn-ghost text-danger"
                  aria-label={`Delete ${l.name}`}
                  onClick={async () => {
                    if (!confirm(`Delete line “${l.name}”?`)) return;
                    try {
                      await del.mutateAsync({ workspaceId, lineId: l.id });
                      qc.invalidateQueries({ queryKey: trpc.lines.list.queryKey() });
                    } catch (e) {
                      toast.error((e as Error).message);
                    }
                  }}
                >
                  <Trash2 size={14} />
                </button>
              </div>
            </div>
            {l.steps.length > 0 && (
              <ol className="mt-3 flex flex-wrap items-center gap-2 text-sm">
                {l.steps.map((s, i) => (
                  <li key={i} className="flex items-center gap-2">
                    {i > 0 && (
                      <span className="text-muted" aria-hidden>
                        →
                      </span>
                    )}
                    <span className="rounded-md border border-border bg-zinc-50 px-2 py-1">
                      <span className="font-medium">{s.name}</span> <span className="text-xs text-muted">{nameOf(s.appId)}</span>
                    </span>
                  </li>
                ))}
              </ol>
            )}
          </li>
        ))}
      </ul>
      <LineDialog
        key={editing === "new" ? "new" : (editing?.id ?? "none")}
        workspaceId={workspaceId}
        line={editing}
        onClose={() => setEditing(null)}
        automations={automations.data?.data ?? []}
      />
    </div>
  );
}

function LineDialog({
  workspaceId,
  line,
  onClose,
  automations,
}: {
  workspaceId: string;
  line: Line | "new" | null;
  onClose: () => void;
  automations: Array<{ id: string; name: string }>;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const create = useMutation(trpc.lines.create.mutationOptions());
  const update = useMutation(trpc.lines.update.mutationOptions());
  const existing = line && line !== "new" ? line : null;
  const [name, setName] = useState(existing?.name ?? "");
  const [steps, setSteps] = useState(existing?.steps ?? []);
  const problems = fieldProblems(create.error ?? update.error);
  const move = (i: number, j: number) =>
    setSteps((s) => {
      const n = [...s];
      const [x] = n.splice(i, 1);
      n.splice(j, 0, x!);
      return n;
    });
  return (
    <Dialog open={!!line} onClose={onClose} title={existing ? `Edit ${existing.name}` : "New line"} wide>
      <form
        className="space-y-4"
        onSubmit={async (e) => {
          e.preventDefault();
          try {
            if (existing) await update.mutateAsync({ workspaceId, lineId: existing.id, name, steps });
            else await create.mutateAsync({ workspaceId, name, steps });
            qc.invalidateQueries({ queryKey: trpc.lines.list.queryKey() });
            onClose();
          } catch {
            /* shown on fields */
          }
        }}
      >
        <div>
          <label htmlFor="line-name" className="label">
            Name
          </label>
          <input id="line-name" className="input" value={name} onChange={(e) => setName(e.target.value)} required aria-invalid={!!problems.name || undefined} />
          {problems.name && <p className="field-error">{problems.name}</p>}
        </div>
        <fieldset>
          <legend className="label">Steps</legend>
          <ol className="space-y-2">
            {steps.map((s, i) => (
              <li key={i} className="flex items-start gap-2">
                <span className="mt-2 w-5 text-right text-xs text-muted">{i + 1}.</span>
                <div className="flex-1">
                  <label htmlFor={`step-name-${i}`} className="sr-only">
                    Step {i + 1} name
                  </label>
                  <input
                    id={`step-name-${i}`}
                    className="input"
                    placeholder="Step name"
                    value={s.name}
                    onChange={(e) => setSteps(steps.map((x, j) => (j === i ? { ...x, name: e.target.value } : x)))}
                    required
                  />
                </div>
                <div className="flex-1">
                  <label htmlFor={`step-app-${i}`} className="sr-only">
                    Step {i + 1} automation
                  </label>
                  <select
                    id={`step-app-${i}`}
                    className="input"
                    value={s.appId}
                    onChange={(e) => setSteps(steps.map((x, j) => (j === i ? { ...x, appId: e.target.value } : x)))}
                    required
                    aria-invalid={!!problems[`steps.${i}.appId`] || undefined}
                  >
                    <option value="">Choose an automation…</option>
                    {automations.map((a) => (
                      <option key={a.id} value={a.id}>
                        {a.name}
                      </option>
                    ))}
                  </select>
                  {problems[`steps.${i}.appId`] && <p className="field-error">{problems[`steps.${i}.appId`]}</p>}
                </div>
                <button type="button" className="btn btn-ghost btn-sm" aria-label={`Move step ${i + 1} up`} disabled={i === 0} onClick={() => move(i, i - 1)}>
                  <ArrowUp size={13} />
                </button>
                <button
                  type="button"
                  className="btn btn-ghost btn-sm"
                  aria-label={`Move step ${i + 1} down`}
                  disabled={i === steps.length - 1}
                  onClick={() => move(i, i + 1)}
                >
                  <ArrowDown size={13} />
                </button>
                <button
                  type="button"
                  className="btn btn-ghost btn-sm text-danger"
                  aria-label={`Remove step ${i + 1}`}
                  onClick={() => setSteps(steps.filter((_, j) => j !== i))}
                >
                  <Trash2 size={13} />
                </button>
              </li>
            ))}
          </ol>
          <button type="button" className="btn btn-sm mt-2" onClick={() => setSteps([...steps, { name: `Step ${steps.length + 1}`, appId: "" }])}>
            <Plus size={13} aria-hidden /> Add step
          </button>
        </fieldset>
        {(create.error ?? update.error) && !Object.keys(problems).length && <p className="field-error">{(create.error ?? update.error)!.message}</p>}
        <div className="flex justify-end gap-2">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button className="btn btn-primary" disabled={create.isPending || update.isPending}>
            Save line
          </button>
        </div>
      </form>
    </Dialog>
  );
}
