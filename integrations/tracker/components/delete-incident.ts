import { z } from "zod";
import { defineComponent } from "../../core/define";
import { NonRetryableError } from "../../core/errors";
import { isNotFound, jsmClient, siteProblem } from "../jsm-client";
import { incidentPickerFields } from "./get-incident";

export const deleteIncident = defineComponent({
  key: "tracker.deleteIncident",
  title: "Delete Incident",
  description: "Deletes an incident (its issue) by key.",
  config: z.object(incidentPickerFields),
  outputType: "tracker.incident.deleted",
  output: z.object({ deleted: z.literal(true), id: z.string(), key: z.string() }),
  example: { deleted: true, id: "10042", key: "SD-42" },
  validate: (_c, { connection }) => {
    const p = connection ? siteProblem(connection) : undefined;
    return p ? [{ path: "connection", message: p }] : [];
  },
  async run(ctx) {
    const jsm = jsmClient(ctx.connection, ctx.http);
    const ref = ctx.config.issue.trim();
    try {
      const issue = await jsm.getIssue(ref);
      await jsm.deleteIssue(issue.key);
      return ctx.emit({ deleted: true as const, id: String(issue.id), key: issue.key });
    } catch (e) {
      if (isNotFound(e)) throw new NonRetryableError(`Incident ${ref} does not exist or is not visible to the connected user.`);
      throw e;
    }
  },
});
