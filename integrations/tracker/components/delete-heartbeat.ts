import { z } from "zod";
import { defineComponent } from "../../core/define";
import { NonRetryableError } from "../../core/errors";
import { teamCheck, teamIdOf } from "../lookups";
import { opsClient, opsGateIssues } from "../ops-client";
import { heartbeatField, teamField } from "../ops-schemas";

export const deleteHeartbeat = defineComponent({
  key: "tracker.deleteHeartbeat",
  title: "Delete Heartbeat",
  description: "Deletes a heartbeat of a team by name.",
  config: z.object({ team: teamField, heartbeat: heartbeatField }),
  outputType: "tracker.heartbeat.deleted",
  output: z.object({ deleted: z.literal(true), name: z.string() }),
  example: { deleted: true, name: "conveyor-dns" },
  validate: (_config, { connection }) => opsGateIssues(connection),
  check: teamCheck,
  async run(ctx) {
    const ops = opsClient(ctx.connection, ctx.http);
    const { heartbeat } = ctx.config;
    const team = await teamIdOf(ops, ctx.connection, ctx.config.team);
    await ops.deleteHeartbeat(team, heartbeat).catch((e) => {
      if (e?.status !== 404) throw e;
      // Gone on a retry: the first attempt deleted it and its answer was lost.
      if (ctx.run.attempt > 1) return;
      throw new NonRetryableError(`Heartbeat "${heartbeat}" does not exist in this team.`);
    });
    return ctx.emit({ deleted: true as const, name: heartbeat });
  },
});
