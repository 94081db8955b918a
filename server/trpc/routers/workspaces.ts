import { z } from "zod";
import { createTRPCRouter, protectedProcedure, workspaceProcedure } from "../trpc";
import { listWorkspaces } from "../../services/workspaces/list-workspaces";
import { createWorkspace } from "../../services/workspaces/create-workspace";
import { deleteWorkspace, renameWorkspace } from "../../services/workspaces/update-workspace";
import { can } from "../../auth/permissions";

export const workspacesRouter = createTRPCRouter({
  list: protectedProcedure.query(({ ctx }) => listWorkspaces(ctx.deps, ctx.actor)),
  get: workspaceProcedure.query(({ ctx }) => ctx.workspace),
  create: protectedProcedure.input(z.object({ name: z.string() })).mutation(({ ctx, input }) => createWorkspace(ctx.deps, ctx.actor, input)),
  rename: workspaceProcedure.input(z.object({ name: z.string() })).mutation(({ ctx, input }) => renameWorkspace(ctx.deps, ctx.actor, input.workspaceId, input)),
  delete: workspaceProcedure.mutation(({ ctx, input }) => deleteWorkspace(ctx.deps, ctx.actor, input.workspaceId)),
});

export const meRouter = createTRPCRouter({
  get: protectedProcedure.query(({ ctx }) => ({
    userId: ctx.actor.userId,
    label: ctx.actor.label,
    role: ctx.actor.role,
    can: {
      createWorkspace: can(ctx.actor.role, "workspace.create"),
      editAutomations: can(ctx.actor.role, "automation.write"),
      runAutomations: can(ctx.actor.role, "run.start"),
      manageTasks: can(ctx.actor.role, "task.write"),
      manageConnections: can(ctx.actor.role, "connection.write"),
      manageKeys: can(ctx.actor.role, "apikey.manage"),
      manageMembers: can(ctx.actor.role, "member.manage"),
    },
  })),
});
