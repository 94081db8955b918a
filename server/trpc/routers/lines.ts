import { z } from "zod";
import { createTRPCRouter, workspaceProcedure } from "../trpc";
import { createLine, deleteLine, getLine, listLines, updateLine } from "../../services/lines/lines";

const Steps = z.array(z.object({ name: z.string(), appId: z.string() }));

export const linesRouter = createTRPCRouter({
  list: workspaceProcedure
    .input(z.object({ limit: z.number().optional(), cursor: z.string().optional() }))
    .query(({ ctx, input }) => listLines(ctx.deps, ctx.actor, input.workspaceId, input)),
  get: workspaceProcedure.input(z.object({ lineId: z.string() })).query(({ ctx, input }) => getLine(ctx.deps, ctx.actor, input.workspaceId, input.lineId)),
  create: workspaceProcedure
    .input(z.object({ name: z.string(), steps: Steps.optional() }))
    .mutation(({ ctx, input }) => createLine(ctx.deps, ctx.actor, input.workspaceId, input)),
  update: workspaceProcedure
    .input(z.object({ lineId: z.string(), name: z.string().optional(), steps: Steps.optional() }))
    .mutation(({ ctx, input }) => updateLine(ctx.deps, ctx.actor, input.workspaceId, input.lineId, { name: input.name, steps: input.steps })),
  delete: workspaceProcedure
    .input(z.object({ lineId: z.string() }))
    .mutation(({ ctx, input }) => deleteLine(ctx.deps, ctx.actor, input.workspaceId, input.lineId)),
});
