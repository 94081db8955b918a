/**
 * tracker.onAlert: one outgoing Webhook integration in the operations module per trigger node,
 * created at setup (optional owning team = team filter, one outgoing action per selected event) and
 * removed at teardown. Deliveries carry the Opsgenie-style "alert action data" (UPSTREAM.md §F.5).
 */
import { timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { defineTrigger, type TriggerSetupContext } from "../../core/define";
import { DeliveryRejectedError, DeliveryUnauthorizedError, IntegrationHttpError } from "../../core/errors";
import { ui } from "../../core/ui-meta";
import { opsClient, opsGateIssues, type OpsClient } from "../ops-client";

export const ALERT_EVENTS = ["created", "acknowledged", "closed", "deleted"] as const;
type AlertEvent = (typeof ALERT_EVENTS)[number];
const ACTION_OF: Record<string, AlertEvent> = { create: "created", acknowledge: "acknowledged", close: "closed", delete: "deleted" };
const UPSTREAM_ACTION: Record<AlertEvent, string> = { created: "create", acknowledged: "acknowledge", closed: "close", deleted: "delete" };
export const TOKEN_HEADER = "x-conveyor-token";

export const onAlertConfig = z.object({
  team: z
    .string()
    .optional()
    .meta(ui({ title: "Team", description: "Empty: alerts of all teams", widget: "resource", resource: { type: "teams" }, order: 1 })),
  events: z
    .array(z.enum(ALERT_EVENTS))
    .min(1)
    .default(["created"])
    .meta(
      ui({
        title: "Events",
        widget: "multiselect",
        order: 2,
        enumLabels: { created: "Created", acknowledged: "Acknowledged", closed: "Closed", deleted: "Deleted" },
      }),
    ),
});
type Config = z.output<typeof onAlertConfig>;

const alertInEvent = z.looseObject({
  alertId: z.string(),
  tinyId: z.string().optional(),
  alias: z.string().optional(),
  message: z.string().optional(),
  priority: z.string().optional(),
  tags: z.array(z.string()).optional(),
  source: z.string().optional(),
  username: z.string().optional(),
});

const output = z.object({ action: z.enum(ALERT_EVENTS), alert: alertInEvent });

const registrationKey = (ctx: { automationId: string; nodeId: string }) => `ops-alert-webhook:${ctx.automationId}:${ctx.nodeId}`;
const integrationName = (ctx: { automationId: string; nodeId: string }) => `Conveyor ${ctx.automationId} ${ctx.nodeId}`;

async function register(ops: OpsClient, ctx: TriggerSetupContext<Config>) {
  const body = {
    name: integrationName(ctx),
    type: "Webhook",
    enabled: true,
    description: "Created by Conveyor for a tracker.onAlert trigger; removed when the trigger goes.",
    ...(ctx.config.team ? { teamId: ctx.config.team } : {}),
    typeSpecificProperties: {
      url: ctx.intake.url,
      headers: { [TOKEN_HEADER]: ctx.intake.token },
      addAlertDescription: true,
      addAlertDetails: true,
      forwardingActionGroupEnabled: true,
      outgoingSettingsEnabled: true,
    },
  };
  let integ: { id: string };
  try {
    integ = await ops.createIntegration(body);
  } catch (e) {
    // A leftover integration of this node (e.g. an interrupted teardown) holds the name: replace it.
    if (!(e instanceof IntegrationHttpError && e.status === 422 && /already in use/i.test(e.message))) throw e;
    await removeByName(ops, body.name);
    integ = await ops.createIntegration(body);
  }
  try {
    for (const ev of ctx.config.events) {
      await ops.addIntegrationAction(integ.id, {
        type: UPSTREAM_ACTION[ev],
        name: `Forward ${ev}`,
        domain: "alert",
        direction: "outgoing",
        groupType: "forwarding",
        filter: { conditionMatchType: "match-all", conditions: [] },
      });
    }
  } catch (e) {
    await ops.deleteIntegration(integ.id).catch(() => undefined);
    throw e;
  }
  ctx.log.info("Registered operations webhook integration", { integrationId: integ.id, events: ctx.config.events });
  return { upstreamId: integ.id, data: { name: body.name, events: ctx.config.events, team: ctx.config.team ?? null } };
}

async function removeByName(ops: OpsClient, name: string) {
  const all = await ops.listIntegrations();
  for (const i of all.filter((x) => x.name === name)) await ops.deleteIntegration(i.id);
}

export const onAlert = defineTrigger({
  key: "tracker.onAlert",
  title: "On Alert",
  description: "Starts a run when an operations alert is created, acknowledged, closed or deleted.",
  docs: "Registers its own outgoing webhook integration in the operations module (one per trigger, removed with the trigger). Needs enableOpsFeatures on the connection and a Premium or Enterprise service-desk plan.",
  config: onAlertConfig,
  outputType: "tracker.alert",
  output,
  example: {
    action: "created",
    alert: {
      alertId: "052652ac-2a0b-4e7c-9d0e-1a2b3c4d5e6f",
      tinyId: "23",
      alias: "aliastest",
      message: "test alert",
      priority: "P3",
      tags: ["tag1"],
      source: "web",
      username: "Conveyor",
    },
  },
  delivery: "webhook",
  validate: (_config, { connection }) => opsGateIssues(connection),
  async setup(ctx) {
    const ops = opsClient(ctx.connection, ctx.http);
    const key = registrationKey(ctx);
    const record = await ctx.registrations.acquire(
      key,
      () => register(ops, ctx),
      async (existing) => {
        await ops.deleteIntegration(existing.upstreamId).catch(() => undefined);
        return register(ops, ctx);
      },
    );
    return { registration: record };
  },
  async teardown(ctx) {
    const ops = opsClient(ctx.connection, ctx.http);
    await ctx.registrations.release(registrationKey(ctx), async (existing) => {
      await ops.deleteIntegration(existing.upstreamId); // false (404) = already gone: fine
    });
  },
  /** Periodic upkeep: an integration removed in the operations module is registered again. */
  async maintain(ctx) {
    const key = registrationKey(ctx);
    const rec = await ctx.registrations.get(key);
    if (!rec) return;
    const ops = opsClient(ctx.connection, ctx.http);
    if (await ops.getIntegration(rec.upstreamId)) return;
    ctx.log.warn("Operations webhook integration is gone; registering it again", { integrationId: rec.upstreamId });
    await ctx.registrations.save(key, await register(ops, ctx));
  },
  verify(delivery, ctx) {
    const got = Buffer.from(delivery.headers[TOKEN_HEADER] ?? "");
    const want = Buffer.from(ctx.intake.token);
    if (got.length !== want.length || !timingSafeEqual(got, want))
      throw new DeliveryUnauthorizedError("Missing or wrong token header on an operations webhook delivery");
  },
  match(delivery, ctx) {
    const body = delivery.body as { action?: unknown; alert?: Record<string, unknown> } | null;
    if (!body || typeof body.action !== "string" || !body.alert || typeof body.alert.alertId !== "string") {
      throw new DeliveryRejectedError("Not an operations alert action payload (needs action and alert.alertId)");
    }
    const action = ACTION_OF[body.action.toLowerCase()];
    if (!action || !ctx.config.events.includes(action)) return [];
    const teams = Array.isArray(body.alert.teams) ? (body.alert.teams as string[]) : [];
    if (ctx.config.team && !teams.includes(ctx.config.team)) return [];
    const alert = alertInEvent.parse(body.alert);
    return [{ data: { action, alert }, dedupeKey: `${alert.alertId}:${action}:${String(body.alert.updatedAt ?? body.alert.createdAt ?? "")}` }];
  },
});
