import { apiRoute, routes } from "@/server/rest/api-route";
import { createFactory, listFactories } from "@/server/rest/operations/workspace-ops";
import { listWorkspaces } from "@/server/services/workspaces/list-workspaces";
import { createWorkspace } from "@/server/services/workspaces/create-workspace";
import { decodeCursor, encodeCursor } from "@/server/services/tasks/cursor";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(listFactories, async ({ deps, actor, query }) => {
    const after = decodeCursor(deps.box, "factories", query.cursor, { c: "string", i: "string" });
    const all = (await listWorkspaces(deps, actor)).filter((w) => !after || w.createdAt > after.c || (w.createdAt === after.c && w.id > after.i));
    const page = all.slice(0, query.limit);
    const last = page[page.length - 1];
    return { data: page, nextCursor: all.length > query.limit && last ? encodeCursor(deps.box, "factories", { c: last.createdAt, i: last.id }) : null };
  }),
  apiRoute(createFactory, async ({ deps, actor, body }) => createWorkspace(deps, actor, body)),
);
