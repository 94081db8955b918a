/** The automation document (what the editor saves and export/import round-trips) and its response shape. */
import { z } from "zod";
import {
  GraphEdgeSchema,
  GraphNodeSchema,
  GraphNoteSchema,
  GraphSchema,
  MAX_GRAPH_NODES,
  pinnedTotal,
  StrictNodeLabelsSchema,
  StrictPinnedDataSchema,
} from "./graph";
import { RESOURCE_KEY_RE } from "./as-code";

const KeySchema = z
  .string()
  .regex(RESOURCE_KEY_RE, "Use 1–64 lowercase letters, digits, - and _ (starting and ending with a letter or digit)")
  .describe("Stable identity in the workspace, unique (the file name in automations-as-code); derived from the name when not given.");

export const AutomationDocumentSchema = z.object({
  name: z.string().trim().min(1).max(200),
  key: KeySchema.optional(),
  description: z.string().max(5000).optional(),
  enabled: z.boolean().optional(),
  concurrency: z.number().int().min(1).max(1000).optional(),
  errorHandlerId: z.string().nullish().describe("Automation started with the summary of a failed run."),
  graph: GraphSchema,
});
export type AutomationDocument = z.input<typeof AutomationDocumentSchema>;

/**
 * The document as a REST request body: the same fields, strict at every level (an unknown field is
 * a 422 naming it). Stored graphs are read with the lenient schema above.
 */
export const AutomationDocumentBodySchema = AutomationDocumentSchema.extend({
  graph: z
    .strictObject({
      nodes: z
        .array(
          GraphNodeSchema.extend({
            position: z.strictObject({ x: z.number(), y: z.number() }).optional(),
            labels: StrictNodeLabelsSchema.optional(),
            pinned: StrictPinnedDataSchema.optional().describe("Pinned output (test runs only; never used by production runs)."),
          }).strict(),
        )
        .max(MAX_GRAPH_NODES),
      edges: z.array(GraphEdgeSchema.strict()).max(2000).default([]),
      notes: z
        .array(
          GraphNoteSchema.extend({
            position: z.strictObject({ x: z.number(), y: z.number() }),
            size: z.strictObject({ width: z.number(), height: z.number() }).optional(),
          }).strict(),
        )
        .max(500)
        .optional(),
    })
    .superRefine(pinnedTotal),
}).strict();

export const AutomationPatchSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  key: KeySchema.optional(),
  description: z.string().max(5000).optional(),
  enabled: z.boolean().optional(),
  concurrency: z.number().int().min(1).max(1000).optional(),
  errorHandlerId: z.string().nullable().optional(),
});
export type AutomationPatch = z.input<typeof AutomationPatchSchema>;

export const AutomationTriggerSchema = z.object({
  nodeId: z.string(),
  key: z.string(),
  intakeId: z.string().nullable(),
  url: z.string().nullable().describe("Webhook URL to give the upstream (null for manual/schedule triggers)."),
});

export const ManagedSourceSchema = z
  .object({
    repository: z.string().nullable(),
    path: z.string().nullable(),
    commit: z.string().nullable(),
    appliedAt: z.string(),
    appliedBy: z.string(),
    appliedVersion: z.number().int().nullable(),
  })
  .describe(
    "Set when the automation was applied from files (`conveyor apply`): it is managed in Git; editing it elsewhere makes the next apply refuse unless forced.",
  );
export type ManagedSourceView = z.infer<typeof ManagedSourceSchema>;

export const RunStatusSchema = z.enum(["queued", "running", "waiting", "succeeded", "failed", "cancelled"]);

export const AutomationSchema = z.object({
  id: z.string(),
  workspaceId: z.string(),
  key: z.string().nullable().describe("Stable key (null for automations made before keys existed, until the next apply stores one)."),
  name: z.string(),
  description: z.string(),
  enabled: z.boolean(),
  concurrency: z.number().int(),
  errorHandlerId: z.string().nullable(),
  version: z.number().int(),
  graph: GraphSchema,
  triggers: z.array(AutomationTriggerSchema),
  source: ManagedSourceSchema.nullable(),
  lastRun: z.object({ id: z.string(), status: RunStatusSchema, createdAt: z.string() }).nullable().optional(),
  problems: z
    .array(z.lazy(() => DocumentProblemSchema))
    .describe(
      "Problems of the saved version, as of its save (a disabled automation may be saved as a draft with problems; enabling and running need none of severity error).",
    ),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Automation = z.infer<typeof AutomationSchema>;

export const AutomationVersionSchema = z.object({
  version: z.number().int(),
  name: z.string(),
  description: z.string(),
  graph: GraphSchema,
  createdBy: z.string().nullable(),
  createdAt: z.string(),
});
export type AutomationVersion = z.infer<typeof AutomationVersionSchema>;

export const DocumentProblemSchema = z.object({
  path: z.string().describe("Dotted path into the document, e.g. graph.nodes.1.config.matchers.0.value."),
  nodeId: z.string().optional(),
  message: z.string(),
  severity: z.enum(["error", "warning"]).optional().describe("error (blocks enabling and running; the default when absent) or warning (shown, never blocks)."),
});
export type DocumentProblem = z.infer<typeof DocumentProblemSchema>;
