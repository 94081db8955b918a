/** Seeds an owner, a second workspace and one API key per role (plus a key limited to one workspace). */
import type { AppDeps } from "../../deps";
import { setupOwner } from "../../services/users/setup-owner";
import { getUserActor } from "../../services/users/get-user-actor";
import { createWorkspace } from "../../services/workspaces/create-workspace";
import { createApiKey } from "../../services/api-keys/api-keys";

export async function seedRest(deps: AppDeps) {
  const setup = await setupOwner(deps, { email: `owner-${Date.now()}@example.com`, password: "correct horse battery staple" });
  const owner = (await getUserActor(deps, setup.user.id))!;
  const other = await createWorkspace(deps, owner, { name: "Other" });
  const key = async (role: "admin" | "editor" | "operator" | "viewer", workspaceIds?: string[]) =>
    (await createApiKey(deps, owner, { name: `${role}${workspaceIds ? "-limited" : ""}`, role, workspaceIds })).key;
  return {
    owner,
    ws: setup.workspace.id,
    other: other.id,
    keys: {
      admin: await key("admin"),
      editor: await key("editor"),
      operator: await key("operator"),
      viewer: await key("viewer"),
      limitedAdmin: await key("admin", [setup.workspace.id]),
    },
  };
}
export type Seed = Awaited<ReturnType<typeof seedRest>>;
