"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Copy } from "lucide-react";
import { useTRPC } from "@/components/providers/trpc-provider";
import { AuditLog } from "./audit-log";
import { EgressSettings } from "./egress-settings";
import { PendingInvitations } from "./pending-invitations";

const ROLES = ["viewer", "operator", "editor", "admin"] as const;

export function WorkspaceSettings({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const router = useRouter();
  const me = useQuery(trpc.me.get.queryOptions());
  const ws = useQuery(trpc.workspaces.get.queryOptions({ workspaceId }));
  const members = useQuery(trpc.members.list.queryOptions());
  const rename = useMutation(trpc.workspaces.rename.mutationOptions());
  const invite = useMutation(trpc.members.invite.mutationOptions());
  const setRole = useMutation(trpc.members.setRole.mutationOptions());
  const [inviteUrl, setInviteUrl] = useState<{ url: string; expiresAt: string } | null>(null);
  const admin = me.data?.can.manageMembers ?? false;

  async function onRename(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    await rename.mutateAsync({ workspaceId, name: String(new FormData(e.currentTarget).get("name") ?? "") });
    toast.success("Workspace renamed");
    router.refresh();
  }
  async function onInvite(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const r = await invite.mutateAsync({ role: f.get("role") as (typeof ROLES)[number], email: String(f.get("email") ?? "") || undefined });
    setInviteUrl({ url: r.url, expiresAt: r.expiresAt });
    await qc.invalidateQueries({ queryKey: trpc.members.invitations.queryKey() });
  }
  return (
    <div className="page space-y-6">
      <div className="page-header">
        <h1>Settings</h1>
      </div>
      <section className="card space-y-3 p-5">
        <h2>Workspace</h2>
        {ws.data && (
          <form onSubmit={onRename} className="flex max-w-md items-end gap-2">
            <div className="flex-1">
              <label className="label" htmlFor="ws-name">
                Name
              </label>
              <input id="ws-name" name="name" className="input" defaultValue={ws.data.name} disabled={!admin} required maxLength={100} />
            </div>
            {admin && (
              <button className="btn" disabled={rename.isPending}>
                Rename
              </button>
            )}
          </form>
        )}
        {rename.error && <p className="field-error">{rename.error.message}</p>}
        <p className="help">
          Workspace id: <code>{workspaceId}</code>
        </p>
      </section>
      <section className="card space-y-3 p-5">
        <h2>Members</h2>
        <div className="relative overflow-x-auto">
          <table className="table">
            <thead>
              <tr>
                <th>Member</th>
                <th>Role</th>
                <th>Last sign-in</th>
              </tr>
            </thead>
            <tbody>
              {members.data?.map((m) => (
                <tr key={m.userId}>
                  <td>
                    <div className="font-medium">{m.name}</div>
                    <div className="text-xs text-muted">{m.email}</div>
                  </td>
                  <td>
                    {admin && m.role !== "owner" ? (
                      <select
                        aria-label={`Role of ${m.email}`}
                        className="input w-36"
                        defaultValue={m.role}
                        onChange={async (e) => {
                          const select = e.currentTarget;
                          try {
                            await setRole.mutateAsync({ userId: m.userId, role: select.value as (typeof ROLES)[number] });
                            await qc.invalidateQueries({ queryKey: trpc.members.list.queryKey() });
                            toast.success(`${m.name || m.email} is now ${select.value}`);
                          } catch (err) {
                            // Refused (e.g. by the server's role rules): show why, and put the select back.
                            select.value = m.role;
                            toast.error(`Role not changed: ${(err as Error).message}`);
                          }
                        }}
                      >
                        {ROLES.map((r) => (
                          <option key={r} value={r}>
                            {r[0]!.toUpperCase() + r.slice(1)}
                          </option>
                        ))}
                      </select>
                    ) : (
                      <span className="capitalize">{m.role}</span>
                    )}
                  </td>
                  <td className="text-muted">{m.lastSignInAt ? new Date(m.lastSignInAt).toLocaleString() : "never"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {admin && (
          <form onSubmit={onInvite} className="flex flex-wrap items-end gap-2 border-t border-border pt-3">
            <div>
              <label className="label" htmlFor="invite-email">
                Email (optional)
              </label>
              <input id="invite-email" name="email" type="email" className="input w-64" />
            </div>
            <div>
              <label className="label" htmlFor="invite-role">
                Role
              </label>
              <select id="invite-role" name="role" className="input w-36" defaultValue="editor">
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r[0]!.toUpperCase() + r.slice(1)}
                  </option>
                ))}
              </select>
            </div>
            <button className="btn btn-primary" disabled={invite.isPending}>
              Create invitation link
            </button>
          </form>
        )}
        {inviteUrl && (
          <div className="space-y-1 rounded-md bg-accent-soft p-3 text-sm">
            <div className="flex items-center gap-2">
              <code className="flex-1 break-all" data-testid="invite-url">
                {inviteUrl.url}
              </code>
              <button className="btn btn-sm" onClick={() => navigator.clipboard.writeText(inviteUrl.url).then(() => toast.success("Copied"))}>
                <Copy size={14} aria-hidden /> Copy
              </button>
            </div>
            <p className="text-xs text-muted">Copy it now: it is not shown again. Valid until {new Date(inviteUrl.expiresAt).toLocaleString()}, for one use.</p>
          </div>
        )}
        {admin && <PendingInvitations />}
      </section>
      {admin && <EgressSettings />}
      {admin && <AuditLog />}
    </div>
  );
}
