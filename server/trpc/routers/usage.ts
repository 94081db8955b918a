import { z } from "zod";
import { createTRPCRouter, workspaceProcedure } from "../trpc";
import { getUsage } from "../../services/usage/get-usage";

export const usageRouter = createTRPCRouter({
  get: workspaceProcedure
    .input(z.object({ from: z.string().optional(), to: z.string().optional(), granularity: z.enum(["day", "hour"]).optional() }))
    .query(({ ctx, input }) => getUsage(ctx.deps, ctx.actor, input.workspaceId, input)),
});
