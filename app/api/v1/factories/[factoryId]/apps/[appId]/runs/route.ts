import { apiRoute, routes } from "@/server/rest/api-route";
import { listRuns, startRun } from "@/server/rest/operations/app-ops";
import { listRuns as list, startRun as start } from "@/server/services/runs";
import { getAutomationOrThrow } from "@/server/services/automations";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(listRuns, async ({ deps, actor, params, query }) => {
    await getAutomationOrThrow(deps, actor, params.factoryId, params.appId); // 404 for an unknown app, not an empty list
    return list(deps, actor, params.factoryId, { ...query, automationId: params.appId });
  }),
  apiRoute(startRun, async ({ deps, actor, params, body, request }) =>
    start(deps, actor, {
      workspaceId: params.factoryId,
      automationId: params.appId,
      payload: body.payload,
      nodeId: body.nodeId,
      eventId: body.eventId,
      idempotencyKey: request.headers.get("idempotency-key") ?? undefined,
    }),
  ),
);
