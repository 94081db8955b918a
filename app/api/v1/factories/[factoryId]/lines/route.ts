import { apiRoute, routes } from "@/server/rest/api-route";
import { createLine, listLines } from "@/server/rest/operations/workspace-ops";
import * as lines from "@/server/services/lines/lines";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(listLines, async ({ deps, actor, params, query }) => lines.listLines(deps, actor, params.factoryId, query)),
  apiRoute(createLine, async ({ deps, actor, params, body }) => lines.createLine(deps, actor, params.factoryId, body)),
);
