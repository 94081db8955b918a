/**
 * tracker.onIssueComment: comment added / edited / removed on an issue of one project, optionally filtered by a
 * regular expression over the comment's text (extracted from ADF). No extractable text never matches a filter.
 */
import { z } from "zod";
import { defineTrigger } from "../../core/define";
import { DeliveryRejectedError } from "../../core/errors";
import { compileLinearRegex, type LinearRegex } from "../../core/linear-regex";
import { ui } from "../../core/ui-meta";
import { adfToText } from "../adf";
import { eventsField, exampleIssue, exampleUser, issueSchema, triggerProjectField, toIssueOutput, userSchema } from "../schemas";
import { SHARED_KEY, deliveryKey, maintainShared, projectMatches, setupShared, teardownShared, verifyJiraDelivery } from "../shared-webhook";

/**
 * The Content Filter runs inside the webhook ingress, on the door's thread: it is compiled with RE2
 * semantics (linear-time matching, see core/linear-regex.ts), so no pattern can stall deliveries.
 * `(?i)` and the other inline flags work natively.
 */
export function compileFilter(src: string): LinearRegex {
  return compileLinearRegex(src);
}

const validRegex = (v: string | undefined) => {
  if (!v) return true;
  try {
    compileFilter(v);
    return true;
  } catch {
    return false;
  }
};

export const onIssueCommentConfig = z.object({
  project: triggerProjectField(),
  events: eventsField(),
  contentFilter: z
    .string()
    .optional()
    .refine(validRegex, { message: "Content Filter must be a valid regular expression (RE2 syntax: no lookaround or backreferences)" })
    .meta(
      ui({
        title: "Content Filter",
        placeholder: "(?i)deploy|rollback",
        order: 3,
        description:
          "Regular expression (RE2 syntax: (?i) for any case; no lookaround or backreferences) matched against the comment text; comments without text never match.",
      }),
    ),
});

const ACTIONS: Record<string, "created" | "updated" | "deleted"> = { comment_created: "created", comment_updated: "updated", comment_deleted: "deleted" };

export const onIssueCommentOutput = z.object({
  action: z.enum(["created", "updated", "deleted"]),
  comment: z.object({
    id: z.string(),
    body: z.string(),
    author: userSchema.nullable(),
    updateAuthor: userSchema.nullable(),
    created: z.string().optional(),
    updated: z.string().optional(),
  }),
  issue: issueSchema,
});

type User = { accountId: string; displayName?: string; emailAddress?: string } | null | undefined;
const user = (u: User) => (u ? { accountId: u.accountId, displayName: u.displayName, emailAddress: u.emailAddress } : null);

export const onIssueComment = defineTrigger({
  key: "tracker.onIssueComment",
  title: "On Issue Comment",
  description: "Starts when a comment is added, edited or removed on an issue of the project.",
  config: onIssueCommentConfig,
  outputType: "tracker.issueComment",
  output: onIssueCommentOutput,
  example: {
    action: "created",
    comment: {
      id: "10040",
      body: "Rolled back deploy 2026.05.01",
      author: exampleUser,
      updateAuthor: exampleUser,
      created: "2026-05-01T10:02:00.000+0000",
      updated: "2026-05-01T10:02:00.000+0000",
    },
    issue: exampleIssue,
  },
  delivery: "shared-webhook",
  sharedKey: SHARED_KEY,
  validate(config) {
    try {
      if (config.contentFilter) compileFilter(config.contentFilter);
      return [];
    } catch (e) {
      return [{ path: "contentFilter", message: `Content Filter is not a valid regular expression: ${(e as Error).message}` }];
    }
  },
  setup: (ctx) => setupShared(ctx, "tracker.onIssueComment"),
  teardown: (ctx) => teardownShared(ctx),
  maintain: (ctx) => maintainShared(ctx),
  verify: (delivery, ctx) => verifyJiraDelivery(delivery, ctx),
  match(delivery, ctx) {
    const body = delivery.body as {
      webhookEvent?: string;
      timestamp?: number;
      comment?: { id: string; body?: unknown; author?: User; updateAuthor?: User; created?: string; updated?: string };
      issue?: { id: string; key: string; self: string; fields?: Record<string, unknown> };
    } | null;
    if (!body || typeof body !== "object" || typeof body.webhookEvent !== "string")
      throw new DeliveryRejectedError("Not a Jira webhook delivery (no webhookEvent)", 400);
    const action = ACTIONS[body.webhookEvent];
    if (!action || !ctx.config.events.includes(action) || !body.comment || !body.issue) return [];
    if (!projectMatches(body.issue, ctx.config.project)) return [];
    const text = adfToText(body.comment.body);
    if (ctx.config.contentFilter) {
      if (!text) return []; // spec: no extractable text never matches a content filter
      let filter: LinearRegex;
      try {
        filter = compileFilter(ctx.config.contentFilter);
      } catch {
        return []; // saved before filters used RE2 syntax: never matches; saving the automation names the problem
      }
      if (!filter.test(text)) return [];
    }
    const c = body.comment;
    return [
      {
        dedupeKey: deliveryKey(delivery, `${body.webhookEvent}:${c.id}:${body.timestamp ?? c.updated ?? ""}`),
        data: {
          action,
          comment: { id: c.id, body: text, author: user(c.author), updateAuthor: user(c.updateAuthor), created: c.created, updated: c.updated },
          issue: toIssueOutput(body.issue),
        },
      },
    ];
  },
});
