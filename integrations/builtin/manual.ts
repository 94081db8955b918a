import { z } from "zod";
import { defineTrigger } from "../core/define";
import { ui } from "../core/ui-meta";

/** Started by hand (Run button) or by the API with a JSON payload, which becomes `$trigger.data`. */
export const manualTrigger = defineTrigger({
  key: "core.manual",
  title: "Manual start",
  description: "Start the automation by hand or through the API with a JSON payload.",
  docs: "The payload given to **Run** (or `POST /api/v1/factories/{id}/apps/{appId}/runs`) becomes `$trigger.data`.",
  delivery: "manual",
  needsConnection: false,
  config: z.object({
    samplePayload: z
      .unknown()
      .optional()
      .meta(ui({ title: "Sample payload", description: "Used by the Run button and expression previews.", widget: "json" })),
  }),
  outputType: "core.manual",
  output: z.unknown(),
  example: { hello: "world" },
  match: () => [],
});
