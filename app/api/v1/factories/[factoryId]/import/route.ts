import { apiRoute, routes } from "@/server/rest/api-route";
import { importFactory } from "@/server/rest/operations/as-code-ops";
import { importBundle } from "@/server/services/as-code/import-bundle";

export const dynamic = "force-dynamic";

/** POST /api/v1/factories/:factoryId/import: plan (dryRun) or apply a bundle of specs, all or nothing */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(importFactory, async ({ deps, actor, params, body }) => importBundle(deps, actor, params.factoryId, body)),
);
