import { apiRoute, routes } from "@/server/rest/api-route";
import { deleteIntake, updateIntake } from "@/server/rest/operations/workspace-ops";
import { deleteWebhookIntake, updateWebhookIntakeSignature } from "@/server/services/intakes-webhook/intakes";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(
  apiRoute(updateIntake, ({ deps, actor, params, body }) => updateWebhookIntakeSignature(deps, actor, params.factoryId, params.intakeId, body)),
  apiRoute(deleteIntake, async ({ deps, actor, params }) => {
    await deleteWebhookIntake(deps, actor, params.factoryId, params.intakeId);
  }),
);
