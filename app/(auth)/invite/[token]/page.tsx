import { getDeps } from "@/server/deps";
import { lookupInvitation } from "@/server/services/users/members";
import { AcceptInviteForm } from "@/components/auth/accept-invite-form";
import { withPageErrors } from "@/server/http/page-errors";

export const dynamic = "force-dynamic";
export const metadata = { title: "Join" };

const CLOSED_TITLES = {
  invalid: "Invitation not valid",
  used: "Invitation already used",
  revoked: "Invitation revoked",
  expired: "Invitation expired",
} as const;

export default withPageErrors(async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const found = await lookupInvitation(await getDeps(), token);
  if (found.state !== "pending") {
    return (
      <div className="card p-6" data-testid="invitation-closed" data-state={found.state}>
        <h1>{CLOSED_TITLES[found.state]}</h1>
        <p className="mt-2 text-sm text-muted">{found.message}</p>
      </div>
    );
  }
  return <AcceptInviteForm token={token} email={found.invitation.email} role={found.invitation.role} />;
});
