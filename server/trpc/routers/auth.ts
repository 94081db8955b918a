import { z } from "zod";
import { createTRPCRouter, publicProcedure } from "../trpc";
import { setupOwner } from "../../services/users/setup-owner";
import { acceptInvitation } from "../../services/users/members";

export const authRouter = createTRPCRouter({
  /** First visit on an empty installation: creates the organization, the owner and a workspace. */
  setupOwner: publicProcedure
    .input(z.object({ email: z.string(), password: z.string(), name: z.string().optional(), organizationName: z.string().optional() }))
    .mutation(async ({ ctx, input }) => {
      const r = await setupOwner(ctx.deps, input);
      return { email: r.user.email, workspaceId: r.workspace.id };
    }),
  acceptInvite: publicProcedure
    .input(z.object({ token: z.string(), email: z.string(), password: z.string(), name: z.string().optional() }))
    .mutation(({ ctx, input }) => acceptInvitation(ctx.deps, input)),
});
