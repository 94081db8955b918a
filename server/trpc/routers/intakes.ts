import { z } from "zod";
import { createTRPCRouter, workspaceProcedure } from "../trpc";
import { createWebhookIntake, deleteWebhookIntake, listIntakes } from "../../services/intakes-webhook/intakes";

export const intakesRouter = createTRPCRouter({
  list: workspaceProcedure
    .input(z.object({ limit: z.number().optional(), cursor: z.string().optional() }))
    .query(({ ctx, input }) => listIntakes(ctx.deps, ctx.actor, input.workspaceId, input)),
  createWebhook: workspaceProcedure
    .input(z.object({ name: z.string(), lineId: z.string(), open: z.boolean().optional() }))
    .mutation(({ ctx, input }) => createWebhookIntake(ctx.deps, ctx.actor, input.workspaceId, input)),
  delete: workspaceProcedure
    .input(z.object({ intakeId: z.string() }))
    .mutation(({ ctx, input }) => deleteWebhookIntake(ctx.deps, ctx.actor, input.workspaceId, input.intakeId)),
});
