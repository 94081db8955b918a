import { createTRPCRouter, workspaceProcedure } from "../trpc";
import { buildCatalog } from "../../../integrations/core/catalog";

export const catalogRouter = createTRPCRouter({
  /** Every integration with its triggers/components (JSON Schema + UI meta); no integration code reaches the browser. */
  list: workspaceProcedure.query(() => buildCatalog()),
});
