"use client";
/** API keys: create (the key is shown once), list by prefix with last use, revoke. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { KeyRound, Plus } from "lucide-react";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc-provider";
import { CopyButton } from "@/components/canvas/copy-button";
import { Dialog } from "@/components/canvas/dialog";
import { fieldProblems } from "@/components/shared/problems";
import { ConfirmActionButton } from "@/components/shared/confirm-action-button";
import { DataTable } from "@/components/shared/data-table";

const ROLES = ["viewer", "operator", "editor", "admin"] as const;

export function ApiKeysPage({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const keys = useQuery(trpc.apiKeys.list.queryOptions());
  const create = useMutation(trpc.apiKeys.create.mutationOptions());
  const revoke = useMutation(trpc.apiKeys.revoke.mutationOptions());
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("");
  const [role, setRole] = useState<(typeof ROLES)[number]>("editor");
  const [onlyHere, setOnlyHere] = useState(true);
  const [created, setCreated] = useState<string | null>(null);
  const problems = fieldProblems(create.error);
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() });

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    try {
      const r = await create.mutateAsync({ name, role, workspaceIds: onlyHere ? [workspaceId] : null });
      setCreated(r.key);
      setName("");
      refresh();
    } catch {
      /* shown on the fields */
    }
  };
  return (
    <div className="page">
      <div className="page-header">
        <div>
          <h1>API keys</h1>
          <p className="text-sm text-muted">
            Keys for scripts calling <code>/api/v1</code>. Each key has one role and may be limited to workspaces.
          </p>
        </div>
        <button
          className="btn btn-primary"
          onClick={() => {
            setCreated(null);
            create.reset();
            setOpen(true);
          }}
          data-testid="new-api-key"
        >
          <Plus size={15} aria-hidden /> New API key
        </button>
      </div>
      <DataTable columns={["Name", "Prefix", "Role", "Workspaces", "Last used", "Status"]} actions empty={keys.data?.length === 0 && "No API keys yet."}>
        {keys.data?.map((k) => (
          <tr key={k.id} data-testid={`api-key-row-${k.name}`}>
            <td className="font-medium">{k.name}</td>
            <td>
              <code className="text-xs">{k.prefix}…</code>
            </td>
            <td className="capitalize">{k.role}</td>
            <td className="text-xs text-muted">{k.workspaceIds ? `${k.workspaceIds.length} workspace${k.workspaceIds.length === 1 ? "" : "s"}` : "All"}</td>
            <td className="text-xs text-muted">{k.lastUsedAt ? new Date(k.lastUsedAt).toLocaleString() : "Never"}</td>
            <td>
              <span className={`badge ${k.status === "active" ? "border-green-200 bg-green-50 text-green-700" : "border-zinc-200 bg-zinc-50 text-zinc-500"}`}>
                <span className="capitalize">{k.status}</span>
              </span>
            </td>
            <td className="text-right">
              {k.status === "active" && (
                <ConfirmActionButton
                  label={`Revoke API key ${k.name}`}
                  confirm={`Revoke “${k.name}”? Scripts using it stop working at once.`}
                  action={() => revoke.mutateAsync({ keyId: k.id })}
                  onSettled={refresh}
                  failure={(m) => `Not revoked: ${m}`}
                >
                  Revoke
                </ConfirmActionButton>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
      <Dialog open={open} onClose={() => setOpen(false)} title={created ? "Copy your new key" : "New API key"}>
        {created ? (
          <div className="space-y-3">
            <p className="text-sm">This is the only time the key is shown. Store it somewhere safe.</p>
            <div className="flex gap-1.5">
              <input
                readOnly
                aria-label="New API key"
                data-testid="created-api-key"
                className="input font-mono text-xs"
                value={created}
                onFocus={(e) => e.target.select()}
              />
              <CopyButton text={created} label="Copy API key" />
            </div>
            <button className="btn" onClick={() => setOpen(false)}>
              Done
            </button>
          </div>
        ) : (
          <form className="space-y-4" onSubmit={submit}>
            <div>
              <label htmlFor="key-name" className="label">
                Name
              </label>
              <input
                id="key-name"
                className="input"
                value={name}
                onChange={(e) => setName(e.target.value)}
                aria-invalid={!!problems.name || undefined}
                placeholder="deploy script"
                required
              />
              {problems.name && <p className="field-error">{problems.name}</p>}
            </div>
            <div>
              <label htmlFor="key-role" className="label">
                Role
              </label>
              <select id="key-role" className="input" value={role} onChange={(e) => setRole(e.target.value as typeof role)}>
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r[0]!.toUpperCase() + r.slice(1)}
                  </option>
                ))}
              </select>
            </div>
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" checked={onlyHere} onChange={(e) => setOnlyHere(e.target.checked)} /> Only this workspace
            </label>
            {create.error && !Object.keys(problems).length && <p className="field-error">{create.error.message}</p>}
            <button className="btn btn-primary" disabled={create.isPending}>
              <KeyRound size={14} aria-hidden /> Create key
            </button>
          </form>
        )}
      </Dialog>
    </div>
  );
}
