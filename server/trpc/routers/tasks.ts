import { z } from "zod";
import { createTRPCRouter, workspaceProcedure } from "../trpc";
import { createTask } from "../../services/tasks/create-task";
import { addTaskComment, getTask, listTaskActivity, listTasks, patchTask } from "../../services/tasks/tasks";
import { transitionTask } from "../../services/tasks/transition-task";

export const tasksRouter = createTRPCRouter({
  list: workspaceProcedure
    .input(
      z.object({
        limit: z.number().optional(),
        cursor: z.string().optional(),
        lineId: z.string().optional(),
        status: z.enum(["draft", "open", "closed"]).optional(),
      }),
    )
    .query(({ ctx, input }) => listTasks(ctx.deps, ctx.actor, input.workspaceId, input)),
  get: workspaceProcedure.input(z.object({ taskId: z.string() })).query(({ ctx, input }) => getTask(ctx.deps, ctx.actor, input.workspaceId, input.taskId)),
  create: workspaceProcedure
    .input(
      z.object({
        lineId: z.string().optional(),
        title: z.string(),
        description: z.string().optional(),
        data: z.unknown().optional(),
        status: z.enum(["draft", "open"]).optional(),
      }),
    )
    .mutation(({ ctx, input }) => {
      const { workspaceId, ...task } = input;
      return createTask(ctx.deps, ctx.actor, workspaceId, task);
    }),
  patch: workspaceProcedure
    .input(z.object({ taskId: z.string(), title: z.string().optional(), description: z.string().optional(), data: z.unknown().optional() }))
    .mutation(({ ctx, input }) => {
      const { workspaceId, taskId, ...patch } = input;
      return patchTask(ctx.deps, ctx.actor, workspaceId, taskId, patch);
    }),
  transition: workspaceProcedure
    .input(
      z.object({
        taskId: z.string(),
        transition: z.discriminatedUnion("action", [
          z.object({ action: z.literal("open") }),
          z.object({ action: z.literal("close"), outcome: z.enum(["completed", "rejected"]), comment: z.string().optional() }),
          z.object({ action: z.literal("retry") }),
        ]),
      }),
    )
    .mutation(({ ctx, input }) => transitionTask(ctx.deps, ctx.actor, input.workspaceId, input.taskId, input.transition)),
  comment: workspaceProcedure
    .input(z.object({ taskId: z.string(), body: z.string() }))
    .mutation(({ ctx, input }) => addTaskComment(ctx.deps, ctx.actor, input.workspaceId, input.taskId, input.body)),
  activity: workspaceProcedure
    .input(z.object({ taskId: z.string(), limit: z.number().optional(), cursor: z.string().optional() }))
    .query(({ ctx, input }) => listTaskActivity(ctx.deps, ctx.actor, input.workspaceId, input.taskId, input)),
});
