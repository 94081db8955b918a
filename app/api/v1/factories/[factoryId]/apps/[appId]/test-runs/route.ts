import { apiRoute, routes } from "@/server/rest/api-route";
import { startTestRun } from "@/server/rest/operations/app-ops";
import { startTestRun as start } from "@/server/services/runs";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(startTestRun, async ({ deps, actor, params, body }) => start(deps, actor, { workspaceId: params.factoryId, automationId: params.appId, ...body })),
);
