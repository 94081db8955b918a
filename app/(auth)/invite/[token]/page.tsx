import { getDeps } from "@/server/deps";
import { findInvitation } from "@/server/services/users/members";
import { AcceptInviteForm } from "@/components/auth/accept-invite-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Join" };

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const inv = await findInvitation(await getDeps(), token);
  if (!inv) {
    return (
      <div className="card p-6">
        <h1>Invitation not valid</h1>
        <p className="mt-2 text-sm text-muted">This link is invalid, already used or expired. Ask an admin for a new one.</p>
      </div>
    );
  }
  return <AcceptInviteForm token={token} email={inv.email} role={inv.role} />;
}
