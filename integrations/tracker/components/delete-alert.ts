import { z } from "zod";
import { defineComponent } from "../../core/define";
import { opsClient, opsGateIssues } from "../ops-client";
import { alertField } from "../ops-schemas";

export const deleteAlert = defineComponent({
  key: "tracker.deleteAlert",
  title: "Delete Alert",
  description: "Deletes an operations alert (processed asynchronously by the operations module).",
  config: z.object({ alert: alertField }),
  outputType: "tracker.alert.deleted",
  output: z.object({ alertId: z.string(), deleted: z.literal(true), requestId: z.string(), result: z.string() }),
  example: {
    alertId: "70413a06-38d6-4c85-92b8-5ebc900d42e2-1714557600123",
    deleted: true,
    requestId: "d383c6e9-b1e7-4b59-9c35-72f1a2187777",
    result: "Request will be processed",
  },
  validate: (_config, { connection }) => opsGateIssues(connection),
  async run(ctx) {
    const ops = opsClient(ctx.connection, ctx.http);
    const alertId = ctx.config.alert.trim();
    const receipt = await ops.deleteAlert(alertId);
    return ctx.emit({ alertId, deleted: true as const, requestId: receipt.requestId, result: receipt.result });
  },
});
