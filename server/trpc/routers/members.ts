import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "../trpc";
import { changeMemberRole, createInvitation, listMembers, removeMember } from "../../services/users/members";

const InviteRole = z.enum(["admin", "editor", "operator", "viewer"]);

export const membersRouter = createTRPCRouter({
  list: protectedProcedure.query(({ ctx }) => listMembers(ctx.deps, ctx.actor)),
  invite: protectedProcedure
    .input(z.object({ role: InviteRole, email: z.string().optional() }))
    .mutation(({ ctx, input }) => createInvitation(ctx.deps, ctx.actor, input)),
  setRole: protectedProcedure
    .input(z.object({ userId: z.string(), role: InviteRole }))
    .mutation(({ ctx, input }) => changeMemberRole(ctx.deps, ctx.actor, input.userId, input.role)),
  remove: protectedProcedure.input(z.object({ userId: z.string() })).mutation(({ ctx, input }) => removeMember(ctx.deps, ctx.actor, input.userId)),
});
