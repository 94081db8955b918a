import { apiRoute, routes } from "@/server/rest/api-route";
import { getEgressPolicy, updateEgressPolicy } from "@/server/rest/operations/settings-ops";
import { getEgressPolicy as readPolicy, updateEgressPolicy as savePolicy } from "@/server/services/settings/egress-policy";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(getEgressPolicy, async ({ deps, actor }) => readPolicy(deps, actor)),
  apiRoute(updateEgressPolicy, async ({ deps, actor, body }) => savePolicy(deps, actor, body)),
);
