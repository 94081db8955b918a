import { apiRoute, routes } from "@/server/rest/api-route";
import { getVersion } from "@/server/rest/operations/app-ops";
import { getVersion as get } from "@/server/services/automations";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(getVersion, async ({ deps, actor, params }) => get(deps, actor, params.factoryId, params.appId, params.version)),
);
