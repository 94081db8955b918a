"use client";
/** Settings › Members: invitations not yet used, revoked or expired, with Revoke. Links are not shown again (only their hash is stored). */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc-provider";

export function PendingInvitations() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const list = useQuery(trpc.members.invitations.queryOptions());
  const revoke = useMutation(trpc.members.revokeInvite.mutationOptions());
  const rows = list.data ?? [];

  return (
    <div className="space-y-2 border-t border-border pt-3" data-testid="pending-invitations">
      <h3 className="font-medium">Pending invitations</h3>
      <p className="help">
        A link is shown only once, when it is created: it is stored hashed, so it cannot be copied again here. To send it again, revoke it and create a new one.
      </p>
      {list.error && <p className="field-error">{list.error.message}</p>}
      {list.isSuccess && rows.length === 0 && <p className="text-sm text-muted">No pending invitations.</p>}
      {rows.length > 0 && (
        <div className="relative overflow-x-auto">
          <table className="table">
            <thead>
              <tr>
                <th>Invited</th>
                <th>Role</th>
                <th>Created by</th>
                <th>Created</th>
                <th>Expires</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((inv) => {
                const who = inv.email ?? "Anyone with the link";
                return (
                  <tr key={inv.id}>
                    <td>{inv.email ?? <span className="text-muted">{who}</span>}</td>
                    <td className="capitalize">{inv.role}</td>
                    <td>{inv.createdBy.replace(/^user:/, "")}</td>
                    <td className="text-muted">{new Date(inv.createdAt).toLocaleString()}</td>
                    <td className="text-muted">{new Date(inv.expiresAt).toLocaleString()}</td>
                    <td className="text-right">
                      <button
                        className="btn btn-sm"
                        aria-label={`Revoke invitation for ${who}`}
                        disabled={revoke.isPending}
                        onClick={async () => {
                          if (!confirm(`Revoke the ${inv.role} invitation for ${who}? Its link stops working at once.`)) return;
                          try {
                            await revoke.mutateAsync({ invitationId: inv.id });
                            toast.success("Invitation revoked");
                          } catch (e) {
                            toast.error(`Not revoked: ${(e as Error).message}`);
                          }
                          await qc.invalidateQueries({ queryKey: trpc.members.invitations.queryKey() });
                        }}
                      >
                        Revoke
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
