import { z } from "zod";
import { createTRPCRouter, workspaceProcedure } from "../trpc";
import {
  beginOAuth,
  chooseSite,
  createConnection,
  deleteConnection,
  getConnectionOrThrow,
  listConnections,
  updateConnection,
  verifyConnection,
  oauthCallbackUrl,
} from "../../services/connections";
import { isReturnPath } from "../../http/return-path";

const One = z.object({ connectionId: z.string() });

export const connectionsRouter = createTRPCRouter({
  list: workspaceProcedure
    .input(z.object({ integration: z.string().optional() }))
    .query(({ ctx, input }) => listConnections(ctx.deps, ctx.actor, input.workspaceId, { integration: input.integration })),
  get: workspaceProcedure.input(One).query(({ ctx, input }) => getConnectionOrThrow(ctx.deps, ctx.actor, input.workspaceId, input.connectionId)),
  create: workspaceProcedure
    .input(z.object({ integration: z.string(), name: z.string(), config: z.record(z.string(), z.unknown()) }))
    .mutation(({ ctx, input }) => createConnection(ctx.deps, ctx.actor, input.workspaceId, input)),
  update: workspaceProcedure
    .input(One.extend({ name: z.string().optional(), config: z.record(z.string(), z.unknown()).optional() }))
    .mutation(({ ctx, input }) => updateConnection(ctx.deps, ctx.actor, input.workspaceId, input.connectionId, { name: input.name, config: input.config })),
  delete: workspaceProcedure.input(One).mutation(({ ctx, input }) => deleteConnection(ctx.deps, ctx.actor, input.workspaceId, input.connectionId)),
  /** One cheap live call; answers the exact failure. */
  verify: workspaceProcedure.input(One).mutation(({ ctx, input }) => verifyConnection(ctx.deps, ctx.actor, input.workspaceId, input.connectionId)),
  /** Starts the OAuth authorization-code flow; the browser goes to `authorizeUrl` and comes back to /oauth/<integration>/callback. */
  beginOAuth: workspaceProcedure
    .input(
      One.extend({
        returnTo: z.string().refine(isReturnPath, "A path on this site").optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const c = await getConnectionOrThrow(ctx.deps, ctx.actor, input.workspaceId, input.connectionId);
      return beginOAuth(ctx.deps, ctx.actor, input.workspaceId, input.connectionId, {
        redirectUri: oauthCallbackUrl(ctx.deps, c.integration),
        returnTo: input.returnTo,
      });
    }),
  /** The OAuth callback (redirect) URL to register in the vendor's developer console for this integration. */
  oauthCallbackUrl: workspaceProcedure
    .input(z.object({ integration: z.string().regex(/^[a-z][a-z0-9-]*$/) }))
    .query(({ ctx, input }) => ({ url: oauthCallbackUrl(ctx.deps, input.integration) })),
  /** Sites the authorised account can reach, when it reaches several (status `needs_site`). */
  siteChoices: workspaceProcedure.input(One).query(async ({ ctx, input }) => {
    const c = await getConnectionOrThrow(ctx.deps, ctx.actor, input.workspaceId, input.connectionId);
    const choices = (c.state as { siteChoices?: Array<{ value: string; label: string }> }).siteChoices ?? [];
    return choices.map(({ value, label }) => ({ value, label }));
  }),
  chooseSite: workspaceProcedure
    .input(One.extend({ value: z.string() }))
    .mutation(({ ctx, input }) => chooseSite(ctx.deps, ctx.actor, input.workspaceId, input.connectionId, input.value)),
});
