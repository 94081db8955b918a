import { apiRoute, routes } from "@/server/rest/api-route";
import { getCatalog } from "@/server/rest/operations/app-ops";
import { buildCatalog } from "@/integrations/core/catalog";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(apiRoute(getCatalog, async () => ({ integrations: buildCatalog() })));
