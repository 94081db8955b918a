import { apiRoute, routes } from "@/server/rest/api-route";
import { verifyConnection } from "@/server/rest/operations/app-ops";
import { verifyConnection as verify } from "@/server/services/connections";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(verifyConnection, async ({ deps, actor, params }) => verify(deps, actor, params.factoryId, params.connectionId)),
);
