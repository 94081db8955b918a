/**
 * tracker.transitionIssue: runs the available transition whose target status is the requested one,
 * with the optional comment and resolution in the same call; emits the refreshed issue.
 */
import { z } from "zod";
import { defineComponent } from "../../core/define";
import { IntegrationHttpError, NonRetryableError } from "../../core/errors";
import { ui } from "../../core/ui-meta";
import { textToAdf } from "../adf";
import { jiraClient } from "../jira-client";
import { exampleIssue, issueKeyField, issueSchema, optionalProjectField, toIssueOutput } from "../schemas";
import { findTransitionTo, noTransitionError } from "./transition-kit";

export const transitionIssueConfig = z.object({
  project: optionalProjectField(),
  issueKey: issueKeyField(),
  targetStatus: z
    .string()
    .trim()
    .min(1, "Choose the target status")
    .meta(
      ui({ title: "Target Status", widget: "resource", resource: { type: "statuses", dependsOn: ["project"], allowCustom: true }, expression: true, order: 3 }),
    ),
  comment: z
    .string()
    .optional()
    .meta(ui({ title: "Comment", widget: "textarea", expression: true, order: 4 })),
  resolution: z
    .string()
    .trim()
    .optional()
    .meta(
      ui({
        title: "Resolution",
        widget: "resource",
        resource: { type: "resolutions", allowCustom: true },
        order: 5,
        description: "Resolution name, e.g. Done",
      }),
    ),
});

export const transitionIssue = defineComponent({
  key: "tracker.transitionIssue",
  title: "Transition Issue",
  description: "Moves an issue to a status through its workflow (optional comment and resolution).",
  docs: 'Finds the transition available to the connection"s user whose target status is **Target Status** (name or id; statuses are never written directly) and runs it, with the optional **Comment** and **Resolution** in the same call. Fails without retry when no available transition leads there (the message lists the reachable statuses) or when a workflow condition or validator refuses. Emits the refreshed issue.',
  config: transitionIssueConfig,
  outputType: "tracker.issue",
  output: issueSchema,
  example: exampleIssue,
  async run(ctx) {
    const { config } = ctx;
    const jira = jiraClient(ctx.connection!, ctx.http);
    const [issue, transitions] = await Promise.all([jira.getIssue(config.issueKey, { fields: "status" }), jira.transitions(config.issueKey)]);
    const current = issue.fields.status;
    const t = findTransitionTo(transitions, config.targetStatus);
    if (!t) {
      const there = current && (current.name.toLowerCase() === config.targetStatus.toLowerCase() || current.id === config.targetStatus);
      if (!there) throw noTransitionError(issue.key, current?.name, config.targetStatus, transitions);
      // A retried step whose transition already happened: nothing left to do.
      ctx.log.info("issue already in the target status", { key: issue.key, status: current.name });
      return ctx.emit(toIssueOutput(await jira.getIssue(issue.key)));
    }
    const body: Record<string, unknown> = { transition: { id: t.id } };
    if (config.resolution) body.fields = { resolution: { name: config.resolution } };
    if (config.comment?.trim()) body.update = { comment: [{ add: { body: textToAdf(config.comment) } }] };
    try {
      await jira.transition(issue.key, body);
    } catch (e) {
      if (e instanceof IntegrationHttpError && e.status === 400) {
        throw new NonRetryableError(
          `The tracker refused transition "${t.name}" of ${issue.key} to "${t.to.name}": ${e.message.replace(/^.*?→ 400: /, "")}`,
          e.body,
        );
      }
      throw e;
    }
    return ctx.emit(toIssueOutput(await jira.getIssue(issue.key)));
  },
});
