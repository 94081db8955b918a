import { apiRoute, routes } from "@/server/rest/api-route";
import { listOrderActivity } from "@/server/rest/operations/workspace-ops";
import { listTaskActivity } from "@/server/services/tasks/tasks";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(listOrderActivity, async ({ deps, actor, params, query }) => listTaskActivity(deps, actor, params.factoryId, params.orderId, query)),
);
