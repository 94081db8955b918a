import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "../trpc";
import { listAudit } from "../../services/audit/list-audit";

export const auditRouter = createTRPCRouter({
  list: protectedProcedure
    .input(z.object({ before: z.string().optional(), limit: z.number().int().optional() }).optional())
    .query(({ ctx, input }) => listAudit(ctx.deps, ctx.actor, input ?? {})),
});
