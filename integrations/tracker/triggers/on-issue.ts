/** tracker.onIssue: issue created / updated / deleted in one project, via the connection's shared Jira webhook. */
import { z } from "zod";
import { defineTrigger } from "../../core/define";
import { DeliveryRejectedError } from "../../core/errors";
import { eventsField, exampleIssue, exampleUser, issueSchema, triggerProjectField, toIssueOutput, userSchema } from "../schemas";
import { SHARED_KEY, deliveryKey, maintainShared, projectMatches, setupShared, teardownShared, verifyJiraDelivery } from "../shared-webhook";

export const onIssueConfig = z.object({ project: triggerProjectField(), events: eventsField() });

const ACTIONS: Record<string, "created" | "updated" | "deleted"> = {
  "jira:issue_created": "created",
  "jira:issue_updated": "updated",
  "jira:issue_deleted": "deleted",
};
/** Comment activity also raises jira:issue_updated; tracker.onIssueComment covers it. */
const COMMENT_UPDATES = new Set(["issue_commented", "issue_comment_edited", "issue_comment_deleted"]);

const changeItem = z.looseObject({
  field: z.string(),
  fieldtype: z.string().optional(),
  fieldId: z.string().optional(),
  from: z.string().nullable().optional(),
  fromString: z.string().nullable().optional(),
  to: z.string().nullable().optional(),
  toString: z.string().nullable().optional(),
});

export const onIssueOutput = z.object({
  action: z.enum(["created", "updated", "deleted"]),
  issue: issueSchema,
  user: userSchema.nullable(),
  changelog: z.looseObject({ id: z.string().optional(), items: z.array(changeItem) }).optional(),
});

interface IssueDelivery {
  webhookEvent?: string;
  issue_event_type_name?: string;
  timestamp?: number;
  issue?: { id: string; key: string; self: string; fields?: Record<string, unknown> };
  user?: { accountId: string; displayName?: string; emailAddress?: string } | null;
  changelog?: { id?: string; items: Array<z.input<typeof changeItem>> };
}

export const onIssue = defineTrigger({
  key: "tracker.onIssue",
  title: "On Issue",
  description: "Starts when an issue of the project is created, updated or deleted.",
  docs: "Uses the connection's single Jira webhook, shared with the other issue, comment and incident triggers. Comment activity is reported by On Issue Comment, not here.",
  config: onIssueConfig,
  outputType: "tracker.issue",
  output: onIssueOutput,
  example: {
    action: "updated",
    issue: exampleIssue,
    user: exampleUser,
    changelog: {
      id: "10100",
      items: [{ field: "status", fieldtype: "jira", fieldId: "status", from: "10000", fromString: "To Do", to: "10001", toString: "In Progress" }],
    },
  },
  delivery: "shared-webhook",
  sharedKey: SHARED_KEY,
  setup: (ctx) => setupShared(ctx, "tracker.onIssue"),
  teardown: (ctx) => teardownShared(ctx),
  maintain: (ctx) => maintainShared(ctx),
  verify: (delivery, ctx) => verifyJiraDelivery(delivery, ctx),
  match(delivery, ctx) {
    const body = delivery.body as IssueDelivery | null;
    if (!body || typeof body !== "object" || typeof body.webhookEvent !== "string")
      throw new DeliveryRejectedError("Not a Jira webhook delivery (no webhookEvent)", 400);
    const action = ACTIONS[body.webhookEvent];
    if (!action || !ctx.config.events.includes(action) || !body.issue) return [];
    if (action === "updated" && COMMENT_UPDATES.has(body.issue_event_type_name ?? "")) return [];
    if (!projectMatches(body.issue, ctx.config.project)) return [];
    return [
      {
        dedupeKey: deliveryKey(delivery, `${body.webhookEvent}:${body.issue.id}:${body.timestamp ?? ""}`),
        data: {
          action,
          issue: toIssueOutput(body.issue),
          user: body.user ? { accountId: body.user.accountId, displayName: body.user.displayName, emailAddress: body.user.emailAddress } : null,
          ...(action === "updated" && body.changelog ? { changelog: body.changelog } : {}),
        },
      },
    ];
  },
});
