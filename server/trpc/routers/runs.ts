import { z } from "zod";
import { createTRPCRouter, workspaceProcedure } from "../trpc";
import { RetryRunSchema, RunStatusSchema, TestRunBodySchema } from "../../contracts/runs";
import { cancelRun, getRunOrThrow, listRuns, recentFailures, retryRun, startRun, startTestRun } from "../../services/runs";

export const runsRouter = createTRPCRouter({
  list: workspaceProcedure
    .input(
      z.object({
        automationId: z.string().optional(),
        status: RunStatusSchema.optional(),
        taskId: z.string().optional(),
        mode: z.enum(["production", "test"]).optional(),
        limit: z.number().optional(),
        cursor: z.string().optional(),
      }),
    )
    .query(({ ctx, input }) => listRuns(ctx.deps, ctx.actor, input.workspaceId, input)),
  /** Runs that failed in the last 24 hours (the sidebar's badge on Runs). */
  failedRecently: workspaceProcedure.query(({ ctx, input }) => recentFailures(ctx.deps, ctx.actor, input.workspaceId)),
  get: workspaceProcedure.input(z.object({ runId: z.string() })).query(({ ctx, input }) => getRunOrThrow(ctx.deps, ctx.actor, input.workspaceId, input.runId)),
  /** Run by hand (core.manual), or replay an earlier trigger event. */
  start: workspaceProcedure
    .input(z.object({ automationId: z.string(), nodeId: z.string().optional(), eventId: z.string().optional(), payload: z.unknown().optional() }))
    .mutation(({ ctx, input }) => startRun(ctx.deps, ctx.actor, input)),
  cancel: workspaceProcedure
    .input(z.object({ runId: z.string() }))
    .mutation(({ ctx, input }) => cancelRun(ctx.deps, ctx.actor, input.workspaceId, input.runId)),
  /** Retry a failed or cancelled run: the same run on its version (`original`), or a new run on the current version. */
  retry: workspaceProcedure
    .input(z.object({ runId: z.string() }).extend(RetryRunSchema.shape))
    .mutation(({ ctx, input }) => retryRun(ctx.deps, ctx.actor, input.workspaceId, input.runId, { version: input.version })),
  /** A test run of the saved version from one node (run step / run from here) with pinned data or the last run's. */
  test: workspaceProcedure
    .input(z.object({ automationId: z.string() }).extend(TestRunBodySchema.shape))
    .mutation(({ ctx, input }) => startTestRun(ctx.deps, ctx.actor, input)),
});
