import { z } from "zod";
import { createTRPCRouter, workspaceProcedure } from "../trpc";
import { AutomationPatchSchema, type AutomationDocument } from "../../contracts/automations";
import {
  createAutomation,
  deleteAutomation,
  duplicateAutomation,
  getAutomationOrThrow,
  getVersion,
  listAutomations,
  listVersions,
  patchAutomation,
  replaceAutomation,
  restoreVersion,
} from "../../services/automations";
import { getTriggerInfo } from "../../services/editor/trigger-info";

const One = z.object({ automationId: z.string() });
/** The service validates the whole document and answers every problem with its node and field, so the door only checks the shape. */
const Document = z.custom<AutomationDocument>((v) => typeof v === "object" && v !== null && !Array.isArray(v), "An automation document object");

export const automationsRouter = createTRPCRouter({
  list: workspaceProcedure
    .input(z.object({ search: z.string().optional(), enabled: z.boolean().optional(), limit: z.number().optional(), cursor: z.string().optional() }))
    .query(({ ctx, input }) => listAutomations(ctx.deps, ctx.actor, input.workspaceId, input)),
  get: workspaceProcedure.input(One).query(({ ctx, input }) => getAutomationOrThrow(ctx.deps, ctx.actor, input.workspaceId, input.automationId)),
  create: workspaceProcedure
    .input(z.object({ document: Document }))
    .mutation(({ ctx, input }) => createAutomation(ctx.deps, ctx.actor, input.workspaceId, input.document)),
  /** Saves the whole document as a new version; validation problems come back in `data.problems` with node ids. */
  save: workspaceProcedure
    .input(One.extend({ document: Document, ifVersion: z.number().optional() }))
    .mutation(({ ctx, input }) =>
      replaceAutomation(ctx.deps, ctx.actor, input.workspaceId, input.automationId, input.document, { ifVersion: input.ifVersion }),
    ),
  patch: workspaceProcedure
    .input(One.extend({ patch: AutomationPatchSchema }))
    .mutation(({ ctx, input }) => patchAutomation(ctx.deps, ctx.actor, input.workspaceId, input.automationId, input.patch)),
  delete: workspaceProcedure.input(One).mutation(({ ctx, input }) => deleteAutomation(ctx.deps, ctx.actor, input.workspaceId, input.automationId)),
  duplicate: workspaceProcedure
    .input(One.extend({ name: z.string().optional() }))
    .mutation(({ ctx, input }) => duplicateAutomation(ctx.deps, ctx.actor, input.workspaceId, input.automationId, { name: input.name })),
  versions: workspaceProcedure.input(One).query(({ ctx, input }) => listVersions(ctx.deps, ctx.actor, input.workspaceId, input.automationId)),
  version: workspaceProcedure
    .input(One.extend({ version: z.number().int() }))
    .query(({ ctx, input }) => getVersion(ctx.deps, ctx.actor, input.workspaceId, input.automationId, input.version)),
  restore: workspaceProcedure
    .input(One.extend({ version: z.number().int() }))
    .mutation(({ ctx, input }) => restoreVersion(ctx.deps, ctx.actor, input.workspaceId, input.automationId, input.version)),
  triggerInfo: workspaceProcedure
    .input(One.extend({ nodeId: z.string() }))
    .query(({ ctx, input }) => getTriggerInfo(ctx.deps, ctx.actor, input.workspaceId, input.automationId, input.nodeId)),
});
