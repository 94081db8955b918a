import { apiRoute, routes } from "@/server/rest/api-route";
import { cancelRun } from "@/server/rest/operations/app-ops";
import { cancelRun as cancel } from "@/server/services/runs";
import { getRunOfApp } from "@/server/rest/run-of-app";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(cancelRun, async ({ deps, actor, params }) => {
    await getRunOfApp(deps, actor, params.factoryId, params.appId, params.runId);
    return cancel(deps, actor, params.factoryId, params.runId);
  }),
);
