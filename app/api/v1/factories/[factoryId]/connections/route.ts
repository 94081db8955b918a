import { apiRoute, routes } from "@/server/rest/api-route";
import { createConnection, listConnections } from "@/server/rest/operations/app-ops";
import { createConnection as create, listConnections as list } from "@/server/services/connections";
import { decodeCursor, encodeCursor } from "@/server/services/tasks/cursor";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(listConnections, async ({ deps, actor, params, query }) => {
    const after = decodeCursor(deps.box, `connections:${params.factoryId}`, query.cursor, { c: "string", i: "string" });
    const all = (await list(deps, actor, params.factoryId)).filter((c) => !after || c.createdAt > after.c || (c.createdAt === after.c && c.id > after.i));
    const page = all.slice(0, query.limit);
    const last = page[page.length - 1];
    return { data: page, nextCursor: all.length > query.limit && last ? encodeCursor(deps.box, `connections:${params.factoryId}`, { c: last.createdAt, i: last.id }) : null };
  }),
  apiRoute(createConnection, async ({ deps, actor, params, body }) => create(deps, actor, params.factoryId, body)),
);
