import { apiRoute, routes } from "@/server/rest/api-route";
import { getUsage } from "@/server/rest/operations/workspace-ops";
import { getUsage as report } from "@/server/services/usage/get-usage";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(getUsage, async ({ deps, actor, params, query }) => report(deps, actor, params.factoryId, query)),
);
