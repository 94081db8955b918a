import { z } from "zod";
import { defineComponent } from "../../core/define";
import { NonRetryableError } from "../../core/errors";
import { teamCheck, teamIdOf } from "../lookups";
import { opsClient, opsGateIssues } from "../ops-client";
import { heartbeatField, teamField } from "../ops-schemas";

export const pingHeartbeat = defineComponent({
  key: "tracker.pingHeartbeat",
  title: "Ping Heartbeat",
  description: "Pings a team's heartbeat. Fails when the heartbeat does not exist (the ping endpoint itself does not check).",
  config: z.object({ team: teamField, heartbeat: heartbeatField }),
  outputType: "tracker.heartbeat.pinged",
  output: z.object({ message: z.string() }),
  example: { message: "PONG - Heartbeat received" },
  validate: (_config, { connection }) => opsGateIssues(connection),
  check: teamCheck,
  async run(ctx) {
    const ops = opsClient(ctx.connection, ctx.http);
    const { heartbeat } = ctx.config;
    const team = await teamIdOf(ops, ctx.connection, ctx.config.team);
    const found = (await ops.listHeartbeats(team, heartbeat)).some((h) => h.name === heartbeat);
    if (!found) throw new NonRetryableError(`Heartbeat "${heartbeat}" does not exist in this team; create it first (Ping needs an existing heartbeat).`);
    const res = await ops.pingHeartbeat(team, heartbeat);
    return ctx.emit({ message: res?.message ?? "PONG - Heartbeat received" });
  },
});
