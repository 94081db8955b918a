/** tracker.createIssue: creates an issue (description as ADF), optionally moves it to a status right away. */
import { z } from "zod";
import { defineComponent } from "../../core/define";
import { IntegrationHttpError, NonRetryableError, isRetryable, retryAfterOf } from "../../core/errors";
import { ui } from "../../core/ui-meta";
import { textToAdf } from "../adf";
import { jiraClient } from "../jira-client";
import { exampleIssue, issueSchema, projectField, toIssueOutput } from "../schemas";
import { createLabel, createLabelled, findCreated, isRetry } from "./create-once";
import { findTransitionTo, noTransitionError } from "./transition-kit";

export const createIssueConfig = z.object({
  project: projectField(),
  issueType: z
    .string()
    .trim()
    .min(1, "Choose an issue type")
    .meta(ui({ title: "Issue Type", widget: "resource", resource: { type: "creatableIssueTypes", dependsOn: ["project"], allowCustom: true }, order: 2 })),
  summary: z
    .string()
    .trim()
    .min(1, "Enter a summary")
    .max(255)
    .meta(ui({ title: "Summary", expression: true, order: 3 })),
  description: z
    .string()
    .optional()
    .meta(ui({ title: "Description", widget: "textarea", expression: true, order: 4, description: "Plain text; stored as Atlassian Document Format." })),
  assignee: z
    .string()
    .trim()
    .optional()
    .meta(ui({ title: "Assignee", widget: "resource", resource: { type: "users", allowCustom: true }, expression: true, order: 5, description: "Account id" })),
  status: z
    .string()
    .trim()
    .optional()
    .meta(
      ui({
        title: "Status",
        widget: "resource",
        resource: { type: "statuses", dependsOn: ["project"], allowCustom: true },
        order: 6,
        description: "When set, the issue is transitioned to this status right after creation.",
      }),
    ),
});

export const createIssue = defineComponent({
  key: "tracker.createIssue",
  title: "Create Issue",
  description: "Creates a Jira issue; with a Status, transitions it there right after creation.",
  docs: "Creates the issue with `POST /rest/api/3/issue`. The description is plain text, stored as Atlassian Document Format (blank lines separate paragraphs). With **Status**, the workflow transition leading from the initial status to it runs right after creation; the step fails (listing the reachable statuses) when none does. The emitted `tracker.issue` is the issue as fetched after any transition. A transient failure after creation resumes with the created issue instead of creating a second one. The issue carries the label `conveyor-<step id>`; when a create's answer is lost (a timeout, a reset connection, a 5xx) the retry first searches for that label and carries on with the issue it finds, so one step makes at most one issue. The first attempt sends the create alone. A project whose create screen lacks Labels gets the issue without the label (logged), and then has no such protection.",
  config: createIssueConfig,
  outputType: "tracker.issue",
  output: issueSchema,
  example: exampleIssue,
  async run(ctx) {
    const { config } = ctx;
    const jira = jiraClient(ctx.connection!, ctx.http);
    // After a transient failure past creation the step waits and resumes with the created key (no duplicate issue).
    const resumed = ctx.state as ResumeState | undefined;
    let key = resumed?.key;
    if (!key) {
      const fields: Record<string, unknown> = {
        project: { key: config.project },
        issuetype: /^\d+$/.test(config.issueType) ? { id: config.issueType } : { name: config.issueType },
        summary: config.summary,
      };
      if (config.description?.trim()) fields.description = textToAdf(config.description);
      if (config.assignee) fields.assignee = { id: config.assignee };
      // A retried attempt looks for the issue a lost answer may have created before creating one (create-once.ts).
      const label = createLabel(ctx.run);
      const earlier = isRetry(ctx.run) ? await findCreated(jira.searchJql, label) : undefined;
      if (earlier) {
        key = earlier.key;
        ctx.log.info("found the issue an earlier attempt created", { key, label });
      } else {
        key = (await createLabelled({ fields }, label, jira.createIssue, ctx.log).catch((e) => Promise.reject(namedCreateError(e, config)))).key;
        ctx.log.info("issue created", { key, label });
      }
    }
    try {
      if (config.status) await moveTo(jira, key, config.status);
      return ctx.emit(toIssueOutput(await jira.getIssue(key)));
    } catch (e) {
      const attempts = (resumed?.attempts ?? 0) + 1;
      if (!isRetryable(e)) throw e;
      if (attempts > MAX_RESUMES) throw new NonRetryableError(`Issue ${key} was created, but finishing it kept failing: ${(e as Error).message}`);
      const delay = retryAfterOf(e) ?? 1000 * 2 ** attempts;
      return ctx.wait(
        delay,
        { key, attempts } satisfies ResumeState,
        `Issue ${key} created; retrying in ${Math.round(delay / 1000)} s (${(e as Error).message})`,
      );
    }
  },
});

/** Jira names the project and issue type fields but not the values it refused; the step error says which. */
function namedCreateError(e: unknown, config: { project: string; issueType: string }): unknown {
  if (!(e instanceof IntegrationHttpError) || e.status !== 400) return e;
  const errors = ((e.body ?? {}) as { errors?: Record<string, unknown> }).errors ?? {};
  if (errors.project)
    return new NonRetryableError(`Project ${config.project} does not exist, or the connection's user cannot create issues in it (${e.message})`);
  if (errors.issuetype) return new NonRetryableError(`Issue type ${config.issueType} is not one of project ${config.project}'s (${e.message})`);
  return e;
}

const MAX_RESUMES = 5;
interface ResumeState {
  key: string;
  attempts: number;
}

async function moveTo(jira: ReturnType<typeof jiraClient>, key: string, status: string) {
  const issue = await jira.getIssue(key, { fields: "status" });
  const current = issue.fields.status;
  if (current && (current.name.toLowerCase() === status.toLowerCase() || current.id === status)) return;
  const transitions = await jira.transitions(key);
  const t = findTransitionTo(transitions, status);
  if (!t) {
    const err = noTransitionError(key, current?.name, status, transitions);
    throw new NonRetryableError(`Issue ${key} was created, but it could not be moved: ${err.message}`, err.details);
  }
  await jira.transition(key, { transition: { id: t.id } });
}
