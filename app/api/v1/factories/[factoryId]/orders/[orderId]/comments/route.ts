import { apiRoute, routes } from "@/server/rest/api-route";
import { commentOrder } from "@/server/rest/operations/workspace-ops";
import { addTaskComment } from "@/server/services/tasks/tasks";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(commentOrder, async ({ deps, actor, params, body }) => addTaskComment(deps, actor, params.factoryId, params.orderId, body.body)),
);
