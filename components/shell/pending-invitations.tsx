"use client";
/** Settings › Members: invitations not yet used, revoked or expired, with Revoke. Links are not shown again (only their hash is stored). */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ConfirmActionButton } from "@/components/shared/confirm-action-button";
import { DataTable } from "@/components/shared/data-table";
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
      {list.isSuccess && (
        <DataTable
          className="relative overflow-x-auto"
          columns={["Invited", "Role", "Created by", "Created", "Expires"]}
          actions
          empty={rows.length === 0 && "No pending invitations."}
        >
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
                  <ConfirmActionButton
                    label={`Revoke invitation for ${who}`}
                    confirm={`Revoke the ${inv.role} invitation for ${who}? Its link stops working at once.`}
                    action={() => revoke.mutateAsync({ invitationId: inv.id })}
                    onSettled={() => qc.invalidateQueries({ queryKey: trpc.members.invitations.queryKey() })}
                    success="Invitation revoked"
                    failure={(m) => `Not revoked: ${m}`}
                  >
                    Revoke
                  </ConfirmActionButton>
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
    </div>
  );
}
