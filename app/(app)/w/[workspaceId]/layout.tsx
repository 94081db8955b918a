import { notFound, redirect } from "next/navigation";
import type { ReactNode } from "react";
import { getDeps } from "@/server/deps";
import { getSessionActor } from "@/server/auth/session";
import { listWorkspaces } from "@/server/services/workspaces/list-workspaces";
import { can } from "@/server/auth/permissions";
import { AppShell } from "@/components/shell/app-shell";
import { withPageErrors } from "@/server/http/page-errors";

export default withPageErrors(async function WorkspaceLayout({ children, params }: { children: ReactNode; params: Promise<{ workspaceId: string }> }) {
  const { workspaceId } = await params;
  const actor = await getSessionActor();
  if (!actor) redirect("/sign-in");
  const workspaces = await listWorkspaces(await getDeps(), actor);
  const current = workspaces.find((w) => w.id === workspaceId);
  if (!current) notFound();
  return (
    <AppShell
      workspace={{ id: current.id, name: current.name }}
      workspaces={workspaces.map((w) => ({ id: w.id, name: w.name }))}
      user={{ label: actor.label.replace(/^user:/, ""), role: actor.role }}
      canCreateWorkspace={can(actor.role, "workspace.create")}
    >
      {children}
    </AppShell>
  );
});
