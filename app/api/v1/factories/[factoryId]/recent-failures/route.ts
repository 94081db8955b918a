import { apiRoute, routes } from "@/server/rest/api-route";
import { getRecentFailures } from "@/server/rest/operations/app-ops";
import { recentFailures } from "@/server/services/runs";

export const dynamic = "force-dynamic";

/** GET /api/v1/factories/:factoryId/recent-failures: production runs that failed in the last 24 hours (or since `since`) */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(getRecentFailures, async ({ deps, actor, params, query }) => recentFailures(deps, actor, params.factoryId, query)),
);
