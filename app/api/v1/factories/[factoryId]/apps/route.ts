import { apiRoute, routes } from "@/server/rest/api-route";
import { createApp, listApps } from "@/server/rest/operations/app-ops";
import { createAutomation, listAutomations } from "@/server/services/automations";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(listApps, async ({ deps, actor, params, query }) => listAutomations(deps, actor, params.factoryId, query)),
  apiRoute(createApp, async ({ deps, actor, params, body }) => createAutomation(deps, actor, params.factoryId, body)),
);
