import { apiRoute, routes } from "@/server/rest/api-route";
import { deleteConnection, getConnection, updateConnection } from "@/server/rest/operations/app-ops";
import { deleteConnection as remove, getConnectionOrThrow, updateConnection as update } from "@/server/services/connections";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(getConnection, async ({ deps, actor, params }) => getConnectionOrThrow(deps, actor, params.factoryId, params.connectionId)),
  apiRoute(updateConnection, async ({ deps, actor, params, body }) => update(deps, actor, params.factoryId, params.connectionId, body)),
  apiRoute(deleteConnection, async ({ deps, actor, params }) => {
    await remove(deps, actor, params.factoryId, params.connectionId);
  }),
);
