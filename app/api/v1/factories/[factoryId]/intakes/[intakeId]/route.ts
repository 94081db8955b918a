import { apiRoute, routes } from "@/server/rest/api-route";
import { deleteIntake } from "@/server/rest/operations/workspace-ops";
import { deleteWebhookIntake } from "@/server/services/intakes-webhook/intakes";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(deleteIntake, async ({ deps, actor, params }) => {
    await deleteWebhookIntake(deps, actor, params.factoryId, params.intakeId);
  }),
);
