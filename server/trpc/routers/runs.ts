import { z } from "zod";
import { createTRPCRouter, workspaceProcedure } from "../trpc";
import { RunStatusSchema } from "../../contracts/runs";
import { cancelRun, getRunOrThrow, listRuns, retryRun, startRun } from "../../services/runs";

export const runsRouter = createTRPCRouter({
  list: workspaceProcedure
    .input(z.object({ automationId: z.string().optional(), status: RunStatusSchema.optional(), taskId: z.string().optional(), limit: z.number().optional(), cursor: z.string().optional() }))
    .query(({ ctx, input }) => listRuns(ctx.deps, ctx.actor, input.workspaceId, input)),
  get: workspaceProcedure.input(z.object({ runId: z.string() })).query(({ ctx, input }) => getRunOrThrow(ctx.deps, ctx.actor, input.workspaceId, input.runId)),
  /** Run by hand (core.manual), or replay an earlier trigger event. */
  start: workspaceProcedure
    .input(z.object({ automationId: z.string(), nodeId: z.string().optional(), eventId: z.string().optional(), payload: z.unknown().optional() }))
    .mutation(({ ctx, input }) => startRun(ctx.deps, ctx.actor, input)),
  cancel: workspaceProcedure.input(z.object({ runId: z.string() })).mutation(({ ctx, input }) => cancelRun(ctx.deps, ctx.actor, input.workspaceId, input.runId)),
  retry: workspaceProcedure.input(z.object({ runId: z.string() })).mutation(({ ctx, input }) => retryRun(ctx.deps, ctx.actor, input.workspaceId, input.runId)),
});
