import { apiRoute, routes } from "@/server/rest/api-route";
import { retryRun } from "@/server/rest/operations/app-ops";
import { retryRun as retry } from "@/server/services/runs";
import { getRunOfApp } from "@/server/rest/run-of-app";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(retryRun, async ({ deps, actor, params, body }) => {
    await getRunOfApp(deps, actor, params.factoryId, params.appId, params.runId);
    return retry(deps, actor, params.factoryId, params.runId, { version: body?.version });
  }),
);
