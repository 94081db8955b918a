import { z } from "zod";
import { defineComponent } from "../../core/define";
import { NonRetryableError } from "../../core/errors";
import { ui } from "../../core/ui-meta";
import { teamCheck, teamIdOf } from "../lookups";
import { opsClient, opsGateIssues } from "../ops-client";
import { PRIORITIES, exampleHeartbeat, heartbeatField, heartbeatOutput, teamField, toHeartbeatOutput } from "../ops-schemas";
import { INTERVAL_UNITS } from "./create-heartbeat";

const toggle = (title: string, order: number, extra: Parameters<typeof ui>[0] = {}) => ui({ title, togglable: true, order, ...extra });

export const updateHeartbeatConfig = z.object({
  team: teamField,
  heartbeat: heartbeatField,
  description: z
    .string()
    .max(10000)
    .optional()
    .meta(toggle("Description", 10, { widget: "textarea", expression: true })),
  interval: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .meta(toggle("Interval", 11, { expression: true })),
  intervalUnit: z.enum(INTERVAL_UNITS).optional().meta(toggle("Interval unit", 12)),
  enabled: z.boolean().optional().meta(toggle("Enabled", 13)),
  alertMessage: z
    .string()
    .max(130)
    .optional()
    .meta(toggle("Alert message", 14, { expression: true })),
  alertTags: z.array(z.string().min(1)).optional().meta(toggle("Alert tags", 15)),
  alertPriority: z.enum(PRIORITIES).optional().meta(toggle("Alert priority", 16)),
});

const OPTIONAL = ["description", "interval", "intervalUnit", "enabled", "alertMessage", "alertTags", "alertPriority"] as const;
const NONE_MESSAGE =
  "Enable at least one field to change (description, interval, interval unit, enabled, alert message, alert tags or alert priority). The name cannot change.";

export const updateHeartbeat = defineComponent({
  key: "tracker.updateHeartbeat",
  title: "Update Heartbeat",
  description: "Changes the enabled fields of a heartbeat; the name cannot change.",
  config: updateHeartbeatConfig,
  outputType: "tracker.heartbeat.updated",
  output: heartbeatOutput,
  example: { ...exampleHeartbeat, interval: 10 },
  check: teamCheck,
  validate(config, { connection }) {
    const issues = opsGateIssues(connection);
    if (!OPTIONAL.some((k) => config[k] !== undefined)) issues.push({ path: "", message: NONE_MESSAGE });
    return issues;
  },
  async run(ctx) {
    const c = ctx.config;
    if (!OPTIONAL.some((k) => c[k] !== undefined)) throw new NonRetryableError(NONE_MESSAGE);
    const ops = opsClient(ctx.connection, ctx.http);
    // The spec marks `name` required in the update body; it must be the current name.
    const body: Record<string, unknown> = { name: c.heartbeat };
    for (const k of OPTIONAL) if (c[k] !== undefined) body[k] = c[k];
    const team = await teamIdOf(ops, ctx.connection, c.team);
    const updated = await ops.updateHeartbeat(team, c.heartbeat, body).catch((e) => {
      throw e?.status === 404 ? new NonRetryableError(`Heartbeat "${c.heartbeat}" does not exist in this team.`) : e;
    });
    return ctx.emit(toHeartbeatOutput(updated));
  },
});
