import { apiRoute, routes, withHeaders } from "@/server/rest/api-route";
import { deleteApp, getApp, patchApp, replaceApp } from "@/server/rest/operations/app-ops";
import { deleteAutomation, getAutomationOrThrow, patchAutomation, replaceAutomation } from "@/server/services/automations";
import { etagFor, parseIfMatch } from "@/server/rest/etag";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(getApp, async ({ deps, actor, params }) => {
    const app = await getAutomationOrThrow(deps, actor, params.factoryId, params.appId);
    return withHeaders(app, { ETag: etagFor(app.version) });
  }),
  apiRoute(replaceApp, async ({ deps, actor, params, body, request }) => {
    const ifVersion = parseIfMatch(request.headers.get("if-match"));
    const app = await replaceAutomation(deps, actor, params.factoryId, params.appId, body, { ifVersion });
    return withHeaders(app, { ETag: etagFor(app.version) });
  }),
  apiRoute(patchApp, async ({ deps, actor, params, body, request }) => {
    const ifVersion = parseIfMatch(request.headers.get("if-match"));
    const app = await patchAutomation(deps, actor, params.factoryId, params.appId, body, { ifVersion });
    return withHeaders(app, { ETag: etagFor(app.version) });
  }),
  apiRoute(deleteApp, async ({ deps, actor, params }) => {
    await deleteAutomation(deps, actor, params.factoryId, params.appId);
  }),
);
