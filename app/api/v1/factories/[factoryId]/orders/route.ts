import { apiRoute, routes } from "@/server/rest/api-route";
import { createOrder, listOrders } from "@/server/rest/operations/workspace-ops";
import { listTasks } from "@/server/services/tasks/tasks";
import { createTask } from "@/server/services/tasks/create-task";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(listOrders, async ({ deps, actor, params, query }) => listTasks(deps, actor, params.factoryId, query)),
  apiRoute(createOrder, async ({ deps, actor, params, body }) => createTask(deps, actor, params.factoryId, body)),
);
