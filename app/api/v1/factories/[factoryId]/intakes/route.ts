import { apiRoute, routes } from "@/server/rest/api-route";
import { createIntake, listIntakes } from "@/server/rest/operations/workspace-ops";
import { createWebhookIntake, listIntakes as list } from "@/server/services/intakes-webhook/intakes";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(listIntakes, async ({ deps, actor, params, query }) => list(deps, actor, params.factoryId, query)),
  apiRoute(createIntake, async ({ deps, actor, params, body }) => createWebhookIntake(deps, actor, params.factoryId, body)),
);
