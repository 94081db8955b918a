import { apiRoute, routes } from "@/server/rest/api-route";
import { getRun } from "@/server/rest/operations/app-ops";
import { getRunOfApp } from "@/server/rest/run-of-app";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(getRun, async ({ deps, actor, params }) => getRunOfApp(deps, actor, params.factoryId, params.appId, params.runId)),
);
