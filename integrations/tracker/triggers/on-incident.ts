/**
 * tracker.onIncident: incident events of a service desk, from the connection's shared Jira webhook
 * (`sharedKey` "jira-webhook", see shared-webhook.ts). An incident is an issue on an incident-management
 * request type; events are matched against the selected request types by their underlying issue type.
 *
 * Matching has no network access, so each selected request type carries its issue type in the option
 * value (`<requestTypeId>:<issueTypeId>`, from the `incidentRequestTypeRefs` picker); plain request type
 * ids are resolved at setup and remembered in the connection state.
 */
import { z } from "zod";
import { defineTrigger } from "../../core/define";
import { DeliveryRejectedError, NonRetryableError } from "../../core/errors";
import { ui } from "../../core/ui-meta";
import { isIncidentPractice, jsmClient } from "../jsm-client";
import { issueSchema, toIssueOutput, userSchema, exampleIssue, exampleUser, eventsField } from "../schemas";
import { deliveryKey, maintainShared, projectMatches, setupShared, SHARED_KEY, teardownShared, verifyJiraDelivery } from "../shared-webhook";

const ACTIONS: Record<string, "created" | "updated" | "deleted"> = {
  "jira:issue_created": "created",
  "jira:issue_updated": "updated",
  "jira:issue_deleted": "deleted",
};
const STATE_KEY = "jsmRequestTypeIssueTypes";

export const onIncidentConfig = z.object({
  serviceDesk: z
    .string()
    .trim()
    .min(1, "Choose a service desk")
    .meta(ui({ title: "Service Desk", description: "Project key of the service desk", widget: "resource", resource: { type: "serviceDeskKeys", allowCustom: true }, order: 1 })),
  requestTypes: z
    .array(z.string().min(1).meta(ui({ title: "Request type", widget: "resource", resource: { type: "incidentRequestTypeRefs", dependsOn: ["serviceDesk"] } })))
    .min(1, "Choose at least one request type")
    .meta(ui({ title: "Request Types", description: "Incident-management request types of the service desk", order: 2 })),
  events: eventsField(),
});
type Config = z.output<typeof onIncidentConfig>;

const output = z.object({
  action: z.enum(["created", "updated", "deleted"]),
  issue: issueSchema,
  user: userSchema.nullable(),
  changelog: z.looseObject({ id: z.string().optional(), items: z.array(z.unknown()) }).optional(),
});

/** `<requestTypeId>:<issueTypeId>` → parts; a plain id has no issue type. */
export function parseRef(ref: string): { requestTypeId: string; issueTypeId?: string } {
  const [requestTypeId, issueTypeId] = ref.split(":", 2);
  return { requestTypeId: requestTypeId!, issueTypeId: issueTypeId || undefined };
}

function issueTypesOf(config: Config, state: Record<string, unknown> | undefined): Set<string> {
  const remembered = ((state?.[STATE_KEY] as Record<string, string> | undefined) ?? {}) as Record<string, string>;
  const out = new Set<string>();
  for (const ref of config.requestTypes) {
    const { requestTypeId, issueTypeId } = parseRef(ref);
    const id = issueTypeId ?? remembered[`${config.serviceDesk.toUpperCase()}/${requestTypeId}`];
    if (id) out.add(id);
  }
  return out;
}

export const onIncident = defineTrigger({
  key: "tracker.onIncident",
  title: "On Incident",
  description: "Starts a run when an incident of the chosen request types is created, updated or deleted on a service desk.",
  docs: "Uses the connection's single Jira webhook (shared with On Issue and On Issue Comment). An incident is an issue whose issue type is the one behind a selected incident-management request type.",
  config: onIncidentConfig,
  outputType: "tracker.incident",
  output,
  example: { action: "created", issue: { ...exampleIssue, key: "SD-12", fields: { ...exampleIssue.fields, project: { id: "10030", key: "SD", name: "IT Service Desk" } } }, user: exampleUser },
  delivery: "shared-webhook",
  sharedKey: SHARED_KEY,
  async setup(ctx) {
    const jsm = jsmClient(ctx.connection, ctx.http);
    const types = await jsm.listRequestTypes(ctx.config.serviceDesk).catch((e) => {
      throw e?.status === 404 ? new NonRetryableError(`Service desk ${ctx.config.serviceDesk} does not exist or is not visible to the connected user.`) : e;
    });
    const remembered: Record<string, string> = { ...((ctx.connection?.state?.[STATE_KEY] as Record<string, string> | undefined) ?? {}) };
    for (const ref of ctx.config.requestTypes) {
      const { requestTypeId } = parseRef(ref);
      const rt = types.find((t) => t.id === requestTypeId);
      if (!rt) throw new NonRetryableError(`Request type ${requestTypeId} does not exist on service desk ${ctx.config.serviceDesk}.`);
      if (rt.practice && !isIncidentPractice(rt.practice)) throw new NonRetryableError(`Request type "${rt.name}" is in the "${rt.practice}" work category, not incident management.`);
      remembered[`${ctx.config.serviceDesk.toUpperCase()}/${rt.id}`] = rt.issueTypeId;
    }
    await ctx.connection?.saveState?.({ [STATE_KEY]: remembered });
    return setupShared(ctx as never, "tracker.onIncident");
  },
  teardown: (ctx) => teardownShared(ctx as never),
  maintain: (ctx) => maintainShared(ctx as never),
  verify: (delivery, ctx) => verifyJiraDelivery(delivery, ctx as never),
  match(delivery, ctx) {
    const body = delivery.body as { webhookEvent?: unknown; issue?: { id: string; key: string; self: string; fields?: Record<string, unknown> }; user?: unknown; changelog?: unknown; timestamp?: unknown } | null;
    if (!body || typeof body.webhookEvent !== "string") throw new DeliveryRejectedError("Not a Jira webhook payload (no webhookEvent)");
    const action = ACTIONS[body.webhookEvent];
    if (!action || !ctx.config.events.includes(action) || !body.issue) return [];
    if (!projectMatches(body.issue, ctx.config.serviceDesk)) return [];
    const issueType = (body.issue.fields?.issuetype as { id?: string } | undefined)?.id;
    if (!issueType || !issueTypesOf(ctx.config, ctx.connection?.state).has(issueType)) return [];
    const user = body.user && typeof body.user === "object" && (body.user as { accountId?: unknown }).accountId ? userSchema.parse(body.user) : null;
    const data = {
      action,
      issue: toIssueOutput(body.issue as Parameters<typeof toIssueOutput>[0]),
      user,
      ...(action === "updated" && body.changelog ? { changelog: body.changelog as { items: unknown[] } } : {}),
    };
    return [{ data, dedupeKey: deliveryKey(delivery, `${body.webhookEvent}:${body.issue.id}:${String(body.timestamp ?? "")}`) }];
  },
});
