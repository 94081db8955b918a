import { z } from "zod";
import { createTRPCRouter, workspaceProcedure } from "../trpc";
import { createWebhookIntake, deleteWebhookIntake, listIntakes, updateWebhookIntakeSignature } from "../../services/intakes-webhook/intakes";

const tolerance = z.number().int().min(5).max(3600).nullable();

export const intakesRouter = createTRPCRouter({
  list: workspaceProcedure
    .input(z.object({ limit: z.number().optional(), cursor: z.string().optional() }))
    .query(({ ctx, input }) => listIntakes(ctx.deps, ctx.actor, input.workspaceId, input)),
  createWebhook: workspaceProcedure
    .input(
      z.object({
        name: z.string(),
        lineId: z.string(),
        open: z.boolean().optional(),
        requireTimestampedSignature: z.boolean().optional(),
        signatureToleranceSeconds: tolerance.optional(),
      }),
    )
    .mutation(({ ctx, input }) => createWebhookIntake(ctx.deps, ctx.actor, input.workspaceId, input)),
  updateSignature: workspaceProcedure
    .input(z.object({ intakeId: z.string(), requireTimestampedSignature: z.boolean().optional(), signatureToleranceSeconds: tolerance.optional() }))
    .mutation(({ ctx, input }) => {
      const { workspaceId, intakeId, ...settings } = input;
      return updateWebhookIntakeSignature(ctx.deps, ctx.actor, workspaceId, intakeId, settings);
    }),
  delete: workspaceProcedure
    .input(z.object({ intakeId: z.string() }))
    .mutation(({ ctx, input }) => deleteWebhookIntake(ctx.deps, ctx.actor, input.workspaceId, input.intakeId)),
});
