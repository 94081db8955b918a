/** tracker.updateIssue: edits the given fields (at least one), then emits the issue as fetched after the update. */
import { z } from "zod";
import { defineComponent } from "../../core/define";
import { NonRetryableError } from "../../core/errors";
import { ui } from "../../core/ui-meta";
import { textToAdf } from "../adf";
import { jiraClient } from "../jira-client";
import { exampleIssue, issueKeyField, issueSchema, projectField, toIssueOutput } from "../schemas";

export const UPDATE_FIELDS = ["summary", "description", "issueType", "assignee", "priority", "labels"] as const;
export const NOTHING_TO_UPDATE = "Update Issue needs at least one field to change: Summary, Description, Issue Type, Assignee, Priority or Labels.";

export const updateIssueConfig = z.object({
  project: projectField(),
  issueKey: issueKeyField(),
  summary: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .optional()
    .meta(ui({ title: "Summary", expression: true, order: 3 })),
  description: z
    .string()
    .optional()
    .meta(ui({ title: "Description", widget: "textarea", expression: true, order: 4, description: "Plain text; stored as Atlassian Document Format." })),
  issueType: z
    .string()
    .trim()
    .min(1)
    .optional()
    .meta(ui({ title: "Issue Type", widget: "resource", resource: { type: "issueTypes", dependsOn: ["project"], allowCustom: true }, order: 5 })),
  assignee: z
    .string()
    .trim()
    .min(1)
    .optional()
    .meta(ui({ title: "Assignee", widget: "resource", resource: { type: "users", allowCustom: true }, expression: true, order: 6 })),
  priority: z
    .string()
    .trim()
    .min(1)
    .optional()
    .meta(ui({ title: "Priority", widget: "resource", resource: { type: "priorities", dependsOn: ["project", "issueType"], allowCustom: true }, order: 7 })),
  labels: z
    .array(z.string().trim().min(1).regex(/^\S+$/, "Labels cannot contain spaces"))
    .optional()
    .meta(ui({ title: "Labels", order: 8, description: "Replaces the issue's labels." })),
  notifyUsers: z
    .boolean()
    .optional()
    .meta(ui({ title: "Notify Users", order: 9, description: "Unset: the tracker's default (notify). Off needs project admin rights in the tracker." })),
});

type UpdateConfig = z.output<typeof updateIssueConfig>;

export function changedFields(config: UpdateConfig): string[] {
  return UPDATE_FIELDS.filter((f) => {
    const v = config[f];
    return Array.isArray(v) ? true : v !== undefined && v !== "";
  });
}

export const updateIssue = defineComponent({
  key: "tracker.updateIssue",
  title: "Update Issue",
  description: "Changes an issue's summary, description, type, assignee, priority or labels.",
  docs: "Sends only the fields you set (at least one is required, checked when saving and again at run time after expressions resolve). **Labels** replace the issue's labels. **Notify Users** is sent only when set; Jira honours `false` only for project administrators. The output is the issue as fetched after the update.",
  config: updateIssueConfig,
  outputType: "tracker.issue",
  output: issueSchema,
  example: exampleIssue,
  validate(config) {
    return changedFields(config).length ? [] : [{ path: "summary", message: NOTHING_TO_UPDATE }];
  },
  async run(ctx) {
    const { config } = ctx;
    // Expressions may resolve to empty values at run time: check again.
    if (!changedFields(config).length) throw new NonRetryableError(NOTHING_TO_UPDATE);
    const fields: Record<string, unknown> = {};
    if (config.summary) fields.summary = config.summary;
    if (config.description !== undefined && config.description !== "") fields.description = textToAdf(config.description);
    if (config.issueType) fields.issuetype = /^\d+$/.test(config.issueType) ? { id: config.issueType } : { name: config.issueType };
    if (config.assignee) fields.assignee = { id: config.assignee };
    if (config.priority) fields.priority = /^\d+$/.test(config.priority) ? { id: config.priority } : { name: config.priority };
    if (config.labels) fields.labels = config.labels;
    const jira = jiraClient(ctx.connection!, ctx.http);
    await jira.editIssue(config.issueKey, { fields }, config.notifyUsers);
    return ctx.emit(toIssueOutput(await jira.getIssue(config.issueKey)));
  },
});
