/** tracker.deleteIssue: deletes an issue; refuses when it has subtasks unless Delete Subtasks is on. */
import { z } from "zod";
import { defineComponent } from "../../core/define";
import { NonRetryableError } from "../../core/errors";
import { ui } from "../../core/ui-meta";
import { jiraClient } from "../jira-client";
import { issueKeyField, projectField } from "../schemas";

export const deleteIssueConfig = z.object({
  project: projectField(),
  issueKey: issueKeyField(),
  deleteSubtasks: z.boolean().default(false).meta(ui({ title: "Delete Subtasks", order: 3, description: "Required to delete an issue that has subtasks." })),
});

export const deleteIssueOutput = z.object({ deleted: z.literal(true), id: z.string(), key: z.string() });

export const deleteIssue = defineComponent({
  key: "tracker.deleteIssue",
  title: "Delete Issue",
  description: "Deletes a Jira issue (and its subtasks when allowed).",
  config: deleteIssueConfig,
  outputType: "tracker.issueDeleted",
  output: deleteIssueOutput,
  example: { deleted: true, id: "10002", key: "OPS-24" },
  async run(ctx) {
    const { config } = ctx;
    const jira = jiraClient(ctx.connection!, ctx.http);
    const issue = await jira.getIssue(config.issueKey, { fields: "subtasks" });
    const subtasks = issue.fields.subtasks ?? [];
    if (subtasks.length && !config.deleteSubtasks) {
      throw new NonRetryableError(
        `Issue ${issue.key} has ${subtasks.length} subtask${subtasks.length > 1 ? "s" : ""} (${subtasks.map((s) => s.key).join(", ")}); turn on Delete Subtasks to delete it with its subtasks.`,
      );
    }
    await jira.deleteIssue(issue.key, config.deleteSubtasks);
    return ctx.emit({ deleted: true as const, id: issue.id, key: issue.key });
  },
});
