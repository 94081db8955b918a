import { apiRoute, routes } from "@/server/rest/api-route";
import { deleteFactory, getFactory, updateFactory } from "@/server/rest/operations/workspace-ops";
import { requireWorkspace } from "@/server/services/access";
import { deleteWorkspace, renameWorkspace } from "@/server/services/workspaces/update-workspace";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(getFactory, async ({ deps, actor, params }) => requireWorkspace(deps.store, actor, params.factoryId, "workspace.read")),
  apiRoute(updateFactory, async ({ deps, actor, params, body }) => renameWorkspace(deps, actor, params.factoryId, body)),
  apiRoute(deleteFactory, async ({ deps, actor, params }) => {
    await deleteWorkspace(deps, actor, params.factoryId);
  }),
);
