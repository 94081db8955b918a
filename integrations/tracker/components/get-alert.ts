import { z } from "zod";
import { defineComponent } from "../../core/define";
import { NonRetryableError } from "../../core/errors";
import { isNotFound } from "../jsm-client";
import { opsClient, opsGateIssues } from "../ops-client";
import { alertField, alertOutput, exampleAlert, toAlertOutput } from "../ops-schemas";

export const getAlert = defineComponent({
  key: "tracker.getAlert",
  title: "Get Alert",
  description: "Reads one operations alert (by alert id or alias, or by the request id a Create Alert failure reported).",
  config: z.object({ alert: alertField }),
  outputType: "tracker.alert.fetched",
  output: alertOutput,
  example: exampleAlert,
  validate: (_config, { connection }) => opsGateIssues(connection),
  async run(ctx) {
    const ops = opsClient(ctx.connection, ctx.http);
    const id = ctx.config.alert.trim();
    try {
      return ctx.emit(toAlertOutput(await ops.getAlert(id)));
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    const byAlias = await ops.getAlertByAlias(id);
    if (byAlias) return ctx.emit(toAlertOutput(byAlias));
    // Not an alert id: maybe its alias, or the request id of an alert-changing call (Create Alert's polling-window failure).
    const status = await ops.requestStatus(id);
    if (status?.alertId) return ctx.emit(toAlertOutput(await ops.getAlert(status.alertId)));
    if (status) throw new NonRetryableError(`Request ${id} was processed without an alert: ${status.status}.`);
    throw new NonRetryableError(`No alert with the id or alias ${id} (and no processed alert request with that id).`);
  },
});
