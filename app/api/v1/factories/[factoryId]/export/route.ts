import { apiRoute, routes } from "@/server/rest/api-route";
import { exportFactory } from "@/server/rest/operations/as-code-ops";
import { exportBundle } from "@/server/services/as-code/export-bundle";

export const dynamic = "force-dynamic";

/** GET /api/v1/factories/:factoryId/export: the workspace as specs (keys, connection names, secret references) */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(exportFactory, async ({ deps, actor, params }) => exportBundle(deps, actor, params.factoryId)),
);
