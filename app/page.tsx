import { redirect } from "next/navigation";
import { getDeps } from "@/server/deps";
import { getSessionActor } from "@/server/auth/session";
import { hasOwner } from "@/server/services/users/setup-owner";
import { listWorkspaces } from "@/server/services/workspaces/list-workspaces";
import { withPageErrors } from "@/server/http/page-errors";

export const dynamic = "force-dynamic";

/** `/`: first visit → owner set-up; signed out → sign-in; else the first workspace. */
export default withPageErrors(async function Home() {
  const deps = await getDeps();
  if (!(await hasOwner(deps.store))) redirect("/setup");
  const actor = await getSessionActor();
  if (!actor) redirect("/sign-in");
  const [first] = await listWorkspaces(deps, actor);
  redirect(first ? `/w/${first.id}/automations` : "/workspaces/new");
});
