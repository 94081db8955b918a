import { z } from "zod";
import { defineComponent } from "../../core/define";
import { jsmClient, siteProblems } from "../jsm-client";
import { incidentPickerFields } from "./get-incident";

export const deleteIncident = defineComponent({
  key: "tracker.deleteIncident",
  title: "Delete Incident",
  description: "Deletes an incident (its issue) by key.",
  config: z.object(incidentPickerFields),
  outputType: "tracker.incident.deleted",
  output: z.object({ deleted: z.literal(true), id: z.string(), key: z.string() }),
  example: { deleted: true, id: "10042", key: "SD-42" },
  validate: (_c, { connection }) => siteProblems(connection),
  async run(ctx) {
    const jsm = jsmClient(ctx.connection, ctx.http);
    const issue = await jsm.getIncidentIssue(ctx.config.issue.trim());
    await jsm.deleteIssue(issue.key);
    return ctx.emit({ deleted: true as const, id: String(issue.id), key: issue.key });
  },
});
