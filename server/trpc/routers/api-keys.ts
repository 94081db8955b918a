import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "../trpc";
import { API_KEY_ROLES, createApiKey, listApiKeys, revokeApiKey } from "../../services/api-keys/api-keys";

export const apiKeysRouter = createTRPCRouter({
  list: protectedProcedure.query(({ ctx }) => listApiKeys(ctx.deps, ctx.actor)),
  create: protectedProcedure
    .input(z.object({ name: z.string(), role: z.enum(API_KEY_ROLES), workspaceIds: z.array(z.string()).nullish(), expiresAt: z.string().nullish() }))
    .mutation(({ ctx, input }) => createApiKey(ctx.deps, ctx.actor, input)),
  revoke: protectedProcedure.input(z.object({ keyId: z.string() })).mutation(({ ctx, input }) => revokeApiKey(ctx.deps, ctx.actor, input.keyId)),
});
