"use client";
/** Automations of a workspace: search, create, duplicate, enable/disable, delete (confirmed), last run status. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Copy, ListChecks, Plus, Search, Trash2, Workflow } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc-provider";
import { DatabaseUnavailable, isDatabaseUnavailableError } from "@/components/errors/database-unavailable";
import { Dialog } from "@/components/canvas/dialog";
import { RunStatusBadge } from "@/components/runs/run-status-badge";
import { fieldProblems } from "@/components/shared/problems";
import { DataTable } from "@/components/shared/data-table";
import { enableRefusedMessage } from "@/components/canvas/use-trpc-problems";

export function AutomationsList({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const router = useRouter();
  const [search, setSearch] = useState("");
  const [q, setQ] = useState("");
  useEffect(() => {
    const t = setTimeout(() => setQ(search.trim()), 200);
    return () => clearTimeout(t);
  }, [search]);
  const list = useQuery({ ...trpc.automations.list.queryOptions({ workspaceId, search: q || undefined, limit: 200 }), refetchInterval: 10_000 });
  const patch = useMutation(trpc.automations.patch.mutationOptions());
  const dup = useMutation(trpc.automations.duplicate.mutationOptions());
  const del = useMutation(trpc.automations.delete.mutationOptions());
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<{ id: string; name: string } | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.automations.list.queryKey() });

  return (
    <div className="page">
      <div className="page-header">
        <div>
          <h1>Automations</h1>
          <p className="text-sm text-muted">Triggers wired to actions. Every save is a version.</p>
        </div>
        <div className="flex items-center gap-2">
          <div className="relative">
            <Search size={14} className="pointer-events-none absolute top-2.5 left-2.5 text-muted" aria-hidden />
            <label htmlFor="automation-search" className="sr-only">
              Search automations
            </label>
            <input id="automation-search" className="input w-56 pl-8" placeholder="Search" value={search} onChange={(e) => setSearch(e.target.value)} />
          </div>
          <button className="btn btn-primary" onClick={() => setCreating(true)} data-testid="new-automation">
            <Plus size={15} aria-hidden /> New automation
          </button>
        </div>
      </div>
      <DatabaseUnavailable errors={[list.error]} />
      {list.isError && !isDatabaseUnavailableError(list.error) && <p className="field-error">{list.error.message}</p>}
      {list.data?.data.length === 0 ? (
        <div className="card flex flex-col items-center gap-2 px-6 py-14 text-center">
          <Workflow size={28} className="text-accent" aria-hidden />
          <h2>{q ? `No automation matches “${q}”` : "No automations yet"}</h2>
          <p className="max-w-sm text-sm text-muted">Start from a trigger, such as an Alertmanager alert, and add the actions it should run.</p>
          {!q && (
            <button className="btn btn-primary mt-2" onClick={() => setCreating(true)}>
              <Plus size={15} aria-hidden /> New automation
            </button>
          )}
        </div>
      ) : (
        <DataTable columns={["Name", "Enabled", "Last run", "Version", "Updated"]} actions>
          {list.data?.data.map((a) => (
            <tr key={a.id} className={a.lastRun?.status === "failed" ? "bg-red-50/40" : ""} data-testid={`automation-row-${a.name}`}>
              <td>
                <Link href={`/w/${workspaceId}/automations/${a.id}`} className="font-medium hover:text-accent hover:underline">
                  {a.name}
                </Link>
                {(() => {
                  const errors = (a.problems ?? []).filter((p) => p.severity !== "warning").length;
                  return errors > 0 ? (
                    <span
                      className="badge ml-2 border-amber-200 bg-amber-50 text-amber-800"
                      data-testid="draft-badge"
                      title="Saved as a draft: fix its problems to enable it"
                    >
                      Draft · {errors} problem{errors === 1 ? "" : "s"}
                    </span>
                  ) : null;
                })()}
                {a.description && <div className="max-w-md truncate text-xs text-muted">{a.description}</div>}
              </td>
              <td>
                <button
                  role="switch"
                  aria-checked={a.enabled}
                  aria-label={`${a.enabled ? "Disable" : "Enable"} ${a.name}`}
                  className={`relative inline-flex h-5 w-9 items-center rounded-full transition-colors ${a.enabled ? "bg-success" : "bg-zinc-300"}`}
                  onClick={async () => {
                    try {
                      await patch.mutateAsync({ workspaceId, automationId: a.id, patch: { enabled: !a.enabled } });
                      refresh();
                    } catch (e) {
                      toast.error(a.enabled ? (e as Error).message : enableRefusedMessage(e, a.name));
                    }
                  }}
                >
                  <span
                    className={`inline-block h-4 w-4 rounded-full bg-white shadow transition-transform ${a.enabled ? "translate-x-4" : "translate-x-0.5"}`}
                  />
                </button>
              </td>
              <td>
                {a.lastRun ? (
                  <Link href={`/w/${workspaceId}/runs/${a.lastRun.id}`} className="inline-flex items-center gap-2">
                    <RunStatusBadge status={a.lastRun.status} />
                    <span className="text-xs text-muted">{new Date(a.lastRun.createdAt).toLocaleString()}</span>
                  </Link>
                ) : (
                  <span className="text-xs text-muted">Never run</span>
                )}
              </td>
              <td className="font-mono text-xs">v{a.version}</td>
              <td className="text-xs text-muted">{new Date(a.updatedAt).toLocaleString()}</td>
              <td className="text-right whitespace-nowrap">
                <button
                  className="btn btn-ghost btn-sm"
                  aria-label={`Duplicate ${a.name}`}
                  title="Duplicate"
                  onClick={async () => {
                    try {
                      const copy = await dup.mutateAsync({ workspaceId, automationId: a.id });
                      toast.success(`Created “${copy.name}”`);
                      refresh();
                    } catch (e) {
                      toast.error((e as Error).message);
                    }
                  }}
                >
                  <Copy size={14} />
                </button>
                <button
                  className="btn btn-ghost btn-sm text-danger"
                  aria-label={`Delete ${a.name}`}
                  title="Delete"
                  onClick={() => setDeleting({ id: a.id, name: a.name })}
                >
                  <Trash2 size={14} />
                </button>
                <Link className="btn btn-ghost btn-sm" aria-label={`Runs of ${a.name}`} title="Runs" href={`/w/${workspaceId}/runs?automationId=${a.id}`}>
                  <ListChecks size={14} />
                </Link>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <NewAutomationDialog
        open={creating}
        onClose={() => setCreating(false)}
        workspaceId={workspaceId}
        onCreated={(id) => router.push(`/w/${workspaceId}/automations/${id}`)}
      />
      <Dialog open={!!deleting} onClose={() => setDeleting(null)} title="Delete automation?">
        <p className="text-sm">“{deleting?.name}” and its versions are deleted and its trigger URLs stop working. Run history is kept until pruned.</p>
        <div className="mt-4 flex justify-end gap-2">
          <button className="btn" onClick={() => setDeleting(null)}>
            Cancel
          </button>
          <button
            className="btn btn-danger"
            data-testid="confirm-delete"
            onClick={async () => {
              try {
                await del.mutateAsync({ workspaceId, automationId: deleting!.id });
                toast.success("Deleted");
                setDeleting(null);
                refresh();
              } catch (e) {
                toast.error((e as Error).message);
              }
            }}
          >
            Delete
          </button>
        </div>
      </Dialog>
    </div>
  );
}

function NewAutomationDialog({
  open,
  onClose,
  workspaceId,
  onCreated,
}: {
  open: boolean;
  onClose: () => void;
  workspaceId: string;
  onCreated: (id: string) => void;
}) {
  const trpc = useTRPC();
  const create = useMutation(trpc.automations.create.mutationOptions());
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const problems = fieldProblems(create.error);
  return (
    <Dialog open={open} onClose={onClose} title="New automation">
      <form
        className="space-y-4"
        onSubmit={async (e) => {
          e.preventDefault();
          try {
            const a = await create.mutateAsync({ workspaceId, document: { name, description, enabled: false, graph: { nodes: [], edges: [] } } });
            onCreated(a.id);
          } catch {
            /* shown below */
          }
        }}
      >
        <div>
          <label htmlFor="new-automation-name" className="label">
            Name
          </label>
          <input
            id="new-automation-name"
            className="input"
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="Silence disk alerts during maintenance"
            required
            autoFocus
            aria-invalid={!!problems.name || undefined}
          />
          {problems.name && <p className="field-error">{problems.name}</p>}
        </div>
        <div>
          <label htmlFor="new-automation-desc" className="label">
            Description <span className="font-normal text-muted">(optional)</span>
          </label>
          <textarea id="new-automation-desc" className="input" value={description} onChange={(e) => setDescription(e.target.value)} />
        </div>
        {create.error && !Object.keys(problems).length && <p className="field-error">{create.error.message}</p>}
        <div className="flex justify-end gap-2">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button className="btn btn-primary" disabled={create.isPending} data-testid="create-automation">
            Create and open editor
          </button>
        </div>
      </form>
    </Dialog>
  );
}
