import type { AppDeps } from "../../deps";
import { assertCan, type Actor } from "../../auth/permissions";

export async function listWorkspaces({ store }: AppDeps, actor: Actor) {
  assertCan(actor, "workspace.read");
  return store.workspaces.list(actor.organizationId ?? null, actor.kind === "apiKey" ? actor.workspaceIds : null);
}
