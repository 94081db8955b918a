import { apiRoute, routes } from "@/server/rest/api-route";
import { transitionOrder } from "@/server/rest/operations/workspace-ops";
import { transitionTask } from "@/server/services/tasks/transition-task";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(transitionOrder, async ({ deps, actor, params, body }) => transitionTask(deps, actor, params.factoryId, params.orderId, body)),
);
