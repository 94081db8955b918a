import { apiRoute, routes } from "@/server/rest/api-route";
import { getOrder, patchOrder } from "@/server/rest/operations/workspace-ops";
import { getTask, patchTask } from "@/server/services/tasks/tasks";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(getOrder, async ({ deps, actor, params }) => getTask(deps, actor, params.factoryId, params.orderId)),
  apiRoute(patchOrder, async ({ deps, actor, params, body }) => patchTask(deps, actor, params.factoryId, params.orderId, body)),
);
