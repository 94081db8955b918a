import { apiRoute, routes } from "@/server/rest/api-route";
import { deleteLine, getLine, updateLine } from "@/server/rest/operations/workspace-ops";
import * as lines from "@/server/services/lines/lines";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(getLine, async ({ deps, actor, params }) => lines.getLine(deps, actor, params.factoryId, params.lineId)),
  apiRoute(updateLine, async ({ deps, actor, params, body }) => lines.updateLine(deps, actor, params.factoryId, params.lineId, body)),
  apiRoute(deleteLine, async ({ deps, actor, params }) => {
    await lines.deleteLine(deps, actor, params.factoryId, params.lineId);
  }),
);
