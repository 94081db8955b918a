import { z } from "zod";
import { defineComponent } from "../../core/define";
import { NonRetryableError } from "../../core/errors";
import { ui } from "../../core/ui-meta";
import { teamCheck, teamIdOf } from "../lookups";
import { opsClient, opsGateIssues } from "../ops-client";
import { PRIORITIES, exampleHeartbeat, heartbeatOutput, teamField, toHeartbeatOutput } from "../ops-schemas";

export const INTERVAL_UNITS = ["minutes", "hours", "days"] as const;

export const createHeartbeat = defineComponent({
  key: "tracker.createHeartbeat",
  title: "Create Heartbeat",
  description: "Creates a heartbeat in a team of the operations module (name unique in the team).",
  config: z.object({
    team: teamField,
    name: z
      .string()
      .min(1)
      .max(200)
      .meta(ui({ title: "Name", description: "Unique within the team", expression: true, order: 2 })),
    interval: z.coerce
      .number()
      .int()
      .min(1)
      .meta(ui({ title: "Interval", description: "Minimum 1", expression: true, order: 3 })),
    intervalUnit: z
      .enum(INTERVAL_UNITS)
      .default("minutes")
      .meta(ui({ title: "Interval unit", order: 4 })),
    enabled: z
      .boolean()
      .default(true)
      .meta(ui({ title: "Enabled", order: 5 })),
    description: z
      .string()
      .max(10000)
      .optional()
      .meta(ui({ title: "Description", widget: "textarea", expression: true, order: 6 })),
    alertMessage: z
      .string()
      .max(130)
      .optional()
      .meta(ui({ title: "Alert message", expression: true, order: 7 })),
    alertTags: z
      .array(z.string().min(1))
      .default([])
      .meta(ui({ title: "Alert tags", order: 8 })),
    alertPriority: z
      .enum(PRIORITIES)
      .optional()
      .meta(ui({ title: "Alert priority", order: 9 })),
  }),
  outputType: "tracker.heartbeat.created",
  output: heartbeatOutput,
  example: exampleHeartbeat,
  validate: (_config, { connection }) => opsGateIssues(connection),
  check: teamCheck,
  async run(ctx) {
    const ops = opsClient(ctx.connection, ctx.http);
    const c = ctx.config;
    const team = await teamIdOf(ops, ctx.connection, c.team);
    const existing = (await ops.listHeartbeats(team, c.name)).find((h) => h.name === c.name);
    // A retry whose first attempt created it (answer lost): the same heartbeat is there, emit it.
    if (existing && ctx.run.attempt > 1 && existing.interval === c.interval && String(existing.intervalUnit).toLowerCase() === c.intervalUnit) {
      return ctx.emit(toHeartbeatOutput(existing));
    }
    if (existing) {
      throw new NonRetryableError(`A heartbeat named "${c.name}" already exists in this team; heartbeat names are unique per team.`);
    }
    const body: Record<string, unknown> = { name: c.name, interval: c.interval, intervalUnit: c.intervalUnit, enabled: c.enabled };
    if (c.description) body.description = c.description;
    if (c.alertMessage) body.alertMessage = c.alertMessage;
    if (c.alertTags.length) body.alertTags = c.alertTags;
    if (c.alertPriority) body.alertPriority = c.alertPriority;
    return ctx.emit(toHeartbeatOutput(await ops.createHeartbeat(team, body)));
  },
});
