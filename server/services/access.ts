/**
 * The gate every workspace-scoped service passes first: the workspace exists, belongs to the
 * actor's organization, is visible to the actor (API keys may be limited; 404 never 403 so that
 * existence does not leak) and the actor's role allows the action.
 */
import type { Store } from "@/db/store";
import type { WorkspaceRow } from "@/db/types";
import { assertCan, canSeeWorkspace, type Action, type Actor } from "../auth/permissions";
import { notFound } from "../errors";

export type { WorkspaceRow };

export async function requireWorkspace(store: Store, actor: Actor, workspaceId: string, action: Action): Promise<WorkspaceRow> {
  const ws = await store.workspaces.get(workspaceId);
  if (!ws || (actor.organizationId && ws.organizationId !== actor.organizationId) || !canSeeWorkspace(actor, workspaceId)) {
    throw notFound("Workspace", workspaceId);
  }
  assertCan(actor, action);
  return ws;
}
