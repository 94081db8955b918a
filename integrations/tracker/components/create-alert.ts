import { z } from "zod";
import { defineComponent, type Logger } from "../../core/define";
import { NonRetryableError } from "../../core/errors";
import { ui } from "../../core/ui-meta";
import { opsClient, opsGateIssues, type OpsClient } from "../ops-client";
import { createLabel, isRetry } from "./create-once";
import { PRIORITIES, RESPONDER_TYPES, alertOutput, exampleAlert, firstLook, isWait, pollRequest, toAlertOutput, type PollState } from "../ops-schemas";

const responderRow = z.object({
  id: z
    .string()
    .min(1)
    .meta(ui({ title: "ID", expression: true })),
  type: z.enum(RESPONDER_TYPES).meta(ui({ title: "Type" })),
});

const optionalText = (title: string, max: number, extra: Parameters<typeof ui>[0] = {}) =>
  z
    .string()
    .max(max)
    .optional()
    .meta(ui({ title, expression: true, ...extra }));

export const createAlertConfig = z.object({
  message: z
    .string()
    .min(1)
    .max(130)
    .meta(ui({ title: "Message", expression: true, order: 1 })),
  description: optionalText("Description", 15000, { widget: "textarea" }),
  note: optionalText("Note", 25000, { widget: "textarea" }),
  alias: optionalText("Alias", 512, {
    description: "De-duplication key: an open alert with the same alias has its count increased instead. Empty: conveyor-<step id>.",
  }),
  entity: optionalText("Entity", 512),
  source: optionalText("Source", 100),
  priority: z
    .enum(PRIORITIES)
    .nullable()
    .optional()
    .meta(ui({ title: "Priority", description: "Unset: the operations default (P3)." })),
  tags: z
    .array(z.string().min(1))
    .default([])
    .meta(ui({ title: "Tags" })),
  actions: z
    .array(z.string().min(1))
    .default([])
    .meta(ui({ title: "Actions" })),
  responders: z
    .array(responderRow)
    .max(50)
    .default([])
    .meta(ui({ title: "Responders" })),
  visibleTo: z
    .array(responderRow)
    .max(50)
    .default([])
    .meta(
      ui({
        title: "Visible to",
        description: "Teams and users who see the alert without being notified; an escalation or a schedule stands for the team that owns it.",
      }),
    ),
  extraProperties: z
    .record(z.string(), z.unknown())
    .optional()
    .meta(ui({ title: "Extra properties", widget: "json", expression: true })),
});

type Config = z.output<typeof createAlertConfig>;

export function createAlertBody(c: Config, visibleTo: Config["visibleTo"] = c.visibleTo): Record<string, unknown> {
  const body: Record<string, unknown> = { message: c.message };
  for (const k of ["description", "note", "alias", "entity", "source", "priority"] as const) if (c[k]) body[k] = c[k];
  if (c.tags.length) body.tags = c.tags;
  if (c.actions.length) body.actions = c.actions;
  if (c.responders.length) body.responders = c.responders;
  if (visibleTo.length) body.visibleTo = visibleTo;
  if (c.extraProperties && Object.keys(c.extraProperties).length) {
    body.extraProperties = Object.fromEntries(Object.entries(c.extraProperties).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
  }
  return body;
}

/**
 * The operations API takes only team and user rows in `visibleTo` (vendor file, `VisibleTo.type`), while
 * responders may also be escalations and schedules. An escalation or schedule row is therefore sent as
 * the team that owns it (the people who run it), once per team.
 */
export async function visibleToRows(ops: OpsClient, rows: Config["visibleTo"], log: Logger): Promise<Config["visibleTo"]> {
  const out: Config["visibleTo"] = [];
  for (const row of rows) {
    let next = row;
    if (row.type === "schedule" || row.type === "escalation") {
      const teamId = row.type === "schedule" ? await ops.scheduleTeam(row.id) : await ops.escalationTeam(row.id);
      if (!teamId) throw new NonRetryableError(`Visible to: ${row.type} ${row.id} does not exist or is not visible to the connected user.`);
      log.info(`Visible to: ${row.type} ${row.id} is sent as its owner team ${teamId}`);
      next = { id: teamId, type: "team" };
    }
    if (!out.some((r) => r.id === next.id && r.type === next.type)) out.push(next);
  }
  return out;
}

export const createAlert = defineComponent({
  key: "tracker.createAlert",
  title: "Create Alert",
  description: "Creates an operations alert, waits for the asynchronous request to be processed and emits the full alert.",
  docs:
    "The operations module processes alert requests asynchronously. The step looks at the request status " +
    "without holding a worker (it is rescheduled between looks) for up to a minute; if the request is still " +
    "not processed, the step fails with the request id, which Get Alert accepts. An alias of an open alert " +
    "updates that alert (its count increases) instead of creating a new one. Without an Alias the alert gets " +
    "`conveyor-<step id>`, so a retry after a lost answer finds the alert by that alias (or the operations module " +
    "de-duplicates the re-sent request) instead of making a second alert.",
  config: createAlertConfig,
  outputType: "tracker.alert.created",
  output: alertOutput,
  example: exampleAlert,
  validate: (_config, { connection }) => opsGateIssues(connection),
  async run(ctx) {
    const ops = opsClient(ctx.connection, ctx.http);
    let st = ctx.state as PollState | undefined;
    const first = !st;
    if (!st) {
      // Without an Alias the step's own one (`conveyor-<step id>`): the operations module's de-duplication key
      // then also covers the step's retries, and a retry first looks for the alert a lost answer created.
      const alias = ctx.config.alias || createLabel(ctx.run);
      if (!ctx.config.alias && isRetry(ctx.run)) {
        const earlier = await ops.getAlertByAlias(alias);
        if (earlier) {
          ctx.log.info("found the alert an earlier attempt created", { alertId: earlier.id, alias });
          return ctx.emit(toAlertOutput(earlier));
        }
      }
      const receipt = await ops.createAlert(createAlertBody({ ...ctx.config, alias }, await visibleToRows(ops, ctx.config.visibleTo, ctx.log)));
      st = { requestId: receipt.requestId, startedAt: ctx.now().getTime(), polls: 0 };
      ctx.log.info("Alert request accepted", { requestId: receipt.requestId });
    }
    const status = await (first ? firstLook : pollRequest)(ctx, ops, st, "Creating the alert");
    if (isWait(status)) return status;
    if (!status.alertId) throw new NonRetryableError(`The operations module processed request ${st.requestId} but reported no alert id.`);
    return ctx.emit(toAlertOutput(await ops.getAlert(status.alertId)));
  },
});
