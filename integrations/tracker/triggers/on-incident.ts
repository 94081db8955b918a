/**
 * tracker.onIncident: incident events of a service desk, from the connection's shared Jira webhook
 * (`sharedKey` "jira-webhook", see shared-webhook.ts). An incident is an issue on an incident-management
 * request type; events are matched against the selected request types by their underlying issue type.
 *
 * Matching has no network access, so each selected request type carries its issue type in the option
 * value (`<requestTypeId>:<issueTypeId>`, from the `incidentRequestTypeRefs` picker); plain request type
 * ids are resolved at setup and remembered in the connection state. The service desk is stored as its
 * project key (the picker shared with Create Incident); a desk given by id is resolved at setup and its key
 * remembered the same way.
 */
import { z } from "zod";
import { defineTrigger } from "../../core/define";
import { DeliveryRejectedError, NonRetryableError } from "../../core/errors";
import { ui } from "../../core/ui-meta";
import { isIncidentPractice, jsmClient, type RequestType, type ServiceDesk } from "../jsm-client";
import { deskMissing, deskProjectKey, findServiceDesk, rememberDeskKey, requireServiceDesk } from "../lookups";
import { issueSchema, toIssueOutput, userSchema, exampleIssue, exampleUser, eventsField, serviceDeskField } from "../schemas";
import { deliveryKey, maintainShared, projectMatches, setupShared, SHARED_KEY, teardownShared, verifyJiraDelivery } from "../shared-webhook";

const ACTIONS: Record<string, "created" | "updated" | "deleted"> = {
  "jira:issue_created": "created",
  "jira:issue_updated": "updated",
  "jira:issue_deleted": "deleted",
};
const STATE_KEY = "jsmRequestTypeIssueTypes";

export const onIncidentConfig = z.object({
  serviceDesk: serviceDeskField(),
  requestTypes: z
    .array(
      z
        .string()
        .min(1)
        .meta(ui({ title: "Request type", widget: "resource", resource: { type: "incidentRequestTypeRefs", dependsOn: ["serviceDesk"] } })),
    )
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

/** Why a selected request type cannot be used on the desk (missing, or not incident management), or undefined. */
export function requestTypeProblem(types: RequestType[], requestTypeId: string, desk: ServiceDesk): string | undefined {
  const rt = types.find((t) => t.id === requestTypeId);
  if (!rt) return `Request type ${requestTypeId} does not exist on service desk ${desk.projectName} (${desk.projectKey}).`;
  if (rt.practice && !isIncidentPractice(rt.practice)) return `Request type "${rt.name}" is in the "${rt.practice}" work category, not incident management.`;
  return undefined;
}

/** `<requestTypeId>:<issueTypeId>` → parts; a plain id has no issue type. */
export function parseRef(ref: string): { requestTypeId: string; issueTypeId?: string } {
  const [requestTypeId, issueTypeId] = ref.split(":", 2);
  return { requestTypeId: requestTypeId!, issueTypeId: issueTypeId || undefined };
}

function issueTypesOf(config: Config, state: Record<string, unknown> | undefined): Set<string> {
  const remembered = ((state?.[STATE_KEY] as Record<string, string> | undefined) ?? {}) as Record<string, string>;
  const desk = deskProjectKey(config.serviceDesk, state);
  const out = new Set<string>();
  for (const ref of config.requestTypes) {
    const { requestTypeId, issueTypeId } = parseRef(ref);
    const id = issueTypeId ?? remembered[`${desk}/${requestTypeId}`];
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
  example: {
    action: "created",
    issue: { ...exampleIssue, key: "SD-12", fields: { ...exampleIssue.fields, project: { id: "10030", key: "SD", name: "IT Service Desk" } } },
    user: exampleUser,
  },
  delivery: "shared-webhook",
  sharedKey: SHARED_KEY,
  async check(config, { connection, http }) {
    const jsm = jsmClient(connection, http);
    const desk = await findServiceDesk(jsm, connection, config.serviceDesk);
    if (!desk) return [{ path: "serviceDesk", message: deskMissing(config.serviceDesk) }];
    const types = await jsm.listRequestTypes(desk.id);
    return config.requestTypes.flatMap((ref, i) => {
      const problem = requestTypeProblem(types, parseRef(ref).requestTypeId, desk);
      return problem ? [{ path: `requestTypes.${i}`, message: problem }] : [];
    });
  },
  async setup(ctx) {
    const jsm = jsmClient(ctx.connection, ctx.http);
    const desk = await requireServiceDesk(jsm, ctx.connection, ctx.config.serviceDesk);
    const types = await jsm.listRequestTypes(desk.id);
    const remembered: Record<string, string> = { ...((ctx.connection?.state?.[STATE_KEY] as Record<string, string> | undefined) ?? {}) };
    for (const ref of ctx.config.requestTypes) {
      const problem = requestTypeProblem(types, parseRef(ref).requestTypeId, desk);
      if (problem) throw new NonRetryableError(problem);
      const rt = types.find((t) => t.id === parseRef(ref).requestTypeId)!;
      remembered[`${desk.projectKey.toUpperCase()}/${rt.id}`] = rt.issueTypeId;
    }
    // Events are matched by project key: remember the key behind a desk given by id (matching has no network).
    await ctx.connection?.saveState?.({ [STATE_KEY]: remembered, ...rememberDeskKey(ctx.connection?.state, ctx.config.serviceDesk, desk) });
    return setupShared(ctx as never, "tracker.onIncident");
  },
  teardown: (ctx) => teardownShared(ctx as never),
  async maintain(ctx) {
    // Triggers set up before desks were resolved to project keys: remember the key now, so the shared
    // registration (checked by maintainShared) follows the desk's project.
    const desk = await Promise.resolve()
      .then(() => findServiceDesk(jsmClient(ctx.connection, ctx.http), ctx.connection, ctx.config.serviceDesk))
      .catch(() => undefined); // the webhook upkeep below must not depend on the desk lookup
    const patch = desk ? rememberDeskKey(ctx.connection?.state, ctx.config.serviceDesk, desk) : {};
    if (Object.keys(patch).length) await ctx.connection?.saveState?.(patch);
    return maintainShared(ctx as never);
  },
  verify: (delivery, ctx) => verifyJiraDelivery(delivery, ctx as never),
  match(delivery, ctx) {
    const body = delivery.body as {
      webhookEvent?: unknown;
      issue?: { id: string; key: string; self: string; fields?: Record<string, unknown> };
      user?: unknown;
      changelog?: unknown;
      timestamp?: unknown;
    } | null;
    if (!body || typeof body.webhookEvent !== "string") throw new DeliveryRejectedError("Not a Jira webhook payload (no webhookEvent)");
    const action = ACTIONS[body.webhookEvent];
    if (!action || !ctx.config.events.includes(action) || !body.issue) return [];
    if (!projectMatches(body.issue, deskProjectKey(ctx.config.serviceDesk, ctx.connection?.state))) return [];
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
