/** tracker.createIssue: creates an issue (description as ADF), optionally moves it to a status right away. */
import { z } from "zod";
import { defineComponent } from "../../core/define";
import { ui } from "../../core/ui-meta";
import { textToAdf } from "../adf";
import { jiraClient } from "../jira-client";
import { exampleIssue, issueSchema, projectField, toIssueOutput } from "../schemas";
import { findTransitionTo, noTransitionError } from "./transition-kit";

export const createIssueConfig = z.object({
  project: projectField(),
  issueType: z.string().trim().min(1, "Choose an issue type").meta(ui({ title: "Issue Type", widget: "resource", resource: { type: "issueTypes", dependsOn: ["project"], allowCustom: true }, order: 2 })),
  summary: z.string().trim().min(1, "Enter a summary").max(255).meta(ui({ title: "Summary", expression: true, order: 3 })),
  description: z.string().optional().meta(ui({ title: "Description", widget: "textarea", expression: true, order: 4, description: "Plain text; stored as Atlassian Document Format." })),
  assignee: z.string().trim().optional().meta(ui({ title: "Assignee", widget: "resource", resource: { type: "users", allowCustom: true }, expression: true, order: 5, description: "Account id" })),
  status: z.string().trim().optional().meta(ui({ title: "Status", widget: "resource", resource: { type: "statuses", dependsOn: ["project"], allowCustom: true }, order: 6, description: "When set, the issue is transitioned to this status right after creation." })),
});

export const createIssue = defineComponent({
  key: "tracker.createIssue",
  title: "Create Issue",
  description: "Creates a Jira issue; with a Status, transitions it there right after creation.",
  config: createIssueConfig,
  outputType: "tracker.issue",
  output: issueSchema,
  example: exampleIssue,
  async run(ctx) {
    const { config } = ctx;
    const jira = jiraClient(ctx.connection!, ctx.http);
    const fields: Record<string, unknown> = {
      project: { key: config.project },
      issuetype: /^\d+$/.test(config.issueType) ? { id: config.issueType } : { name: config.issueType },
      summary: config.summary,
    };
    if (config.description?.trim()) fields.description = textToAdf(config.description);
    if (config.assignee) fields.assignee = { id: config.assignee };
    const created = await jira.createIssue({ fields });
    ctx.log.info("issue created", { key: created.key });
    if (config.status) {
      const issue = await jira.getIssue(created.key, { fields: "status" });
      const current = issue.fields.status;
      const already = current && (current.name.toLowerCase() === config.status.toLowerCase() || current.id === config.status);
      if (!already) {
        const transitions = await jira.transitions(created.key);
        const t = findTransitionTo(transitions, config.status);
        if (!t) {
          const err = noTransitionError(created.key, current?.name, config.status, transitions);
          err.message = `Issue ${created.key} was created, but it could not be moved: ${err.message}`;
          throw err;
        }
        await jira.transition(created.key, { transition: { id: t.id } });
      }
    }
    return ctx.emit(toIssueOutput(await jira.getIssue(created.key)));
  },
});
