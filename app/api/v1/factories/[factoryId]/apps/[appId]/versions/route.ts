import { apiRoute, routes } from "@/server/rest/api-route";
import { listVersions } from "@/server/rest/operations/app-ops";
import { listVersions as list } from "@/server/services/automations";
import { decodeCursor, encodeCursor } from "@/server/services/tasks/cursor";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(listVersions, async ({ deps, actor, params, query }) => {
    const after = decodeCursor(deps.box, `versions:${params.appId}`, query.cursor, { v: "number" });
    const all = (await list(deps, actor, params.factoryId, params.appId)).filter((v) => !after || v.version < after.v);
    const page = all.slice(0, query.limit);
    const last = page[page.length - 1];
    return { data: page, nextCursor: all.length > query.limit && last ? encodeCursor(deps.box, `versions:${params.appId}`, { v: last.version }) : null };
  }),
);
