import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "../trpc";
import { changeMemberRole, createInvitation, listInvitations, listMembers, removeMember, revokeInvitation } from "../../services/users/members";

const InviteRole = z.enum(["admin", "editor", "operator", "viewer"]);

export const membersRouter = createTRPCRouter({
  list: protectedProcedure.query(({ ctx }) => listMembers(ctx.deps, ctx.actor)),
  invite: protectedProcedure
    .input(z.object({ role: InviteRole, email: z.string().optional() }))
    .mutation(({ ctx, input }) => createInvitation(ctx.deps, ctx.actor, input)),
  invitations: protectedProcedure.query(({ ctx }) => listInvitations(ctx.deps, ctx.actor)),
  revokeInvite: protectedProcedure
    .input(z.object({ invitationId: z.string() }))
    .mutation(({ ctx, input }) => revokeInvitation(ctx.deps, ctx.actor, input.invitationId)),
  setRole: protectedProcedure
    .input(z.object({ userId: z.string(), role: InviteRole }))
    .mutation(({ ctx, input }) => changeMemberRole(ctx.deps, ctx.actor, input.userId, input.role)),
  remove: protectedProcedure.input(z.object({ userId: z.string() })).mutation(({ ctx, input }) => removeMember(ctx.deps, ctx.actor, input.userId)),
});
