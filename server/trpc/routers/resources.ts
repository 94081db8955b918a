import { z } from "zod";
import { createTRPCRouter, workspaceProcedure } from "../trpc";
import { listResources } from "../../services/connections";

export const resourcesRouter = createTRPCRouter({
  /** Options for a resource picker, loaded through the node's connection (searchable, paginated, dependent). */
  list: workspaceProcedure
    .input(
      z.object({
        connectionId: z.string(),
        type: z.string(),
        config: z.record(z.string(), z.unknown()).default({}),
        search: z.string().optional(),
        cursor: z.string().optional(),
      }),
    )
    .query(({ ctx, input }) =>
      listResources(ctx.deps, ctx.actor, input.workspaceId, {
        connectionId: input.connectionId,
        resourceType: input.type,
        config: input.config,
        search: input.search,
        cursor: input.cursor,
      }),
    ),
});
