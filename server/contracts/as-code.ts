/**
 * Automations as code: the shape of the files (`conveyor export` writes them, `validate`/`plan`/
 * `apply` read them) and of the bulk export/import REST bodies, which carry the same specs.
 * Resources are identified by a stable `key` (not the id), connections by name, and secret fields
 * by a reference `{ secret: <name> }`, never by value. Isomorphic: no server-only imports.
 */
import { z } from "zod";
import { GraphEdgeSchema, GraphNodeSchema, GraphNoteSchema, MAX_GRAPH_NODES } from "./graph";

export const RESOURCE_KEY_RE = /^[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?$/;
export const SECRET_NAME_RE = /^[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,98}[A-Za-z0-9])?$/;

export const ResourceKeySchema = z
  .string()
  .regex(RESOURCE_KEY_RE, "Use 1–64 lowercase letters, digits, - and _ (starting and ending with a letter or digit), e.g. silence-disk-alerts")
  .meta({ description: "Stable identity in the workspace (also the file name); unique per workspace.", example: "silence-disk-alerts" });

export const SecretRefSchema = z
  .strictObject({
    secret: z
      .string()
      .regex(SECRET_NAME_RE, "Use letters, digits, . - and _, e.g. webhook-bearer")
      .meta({ description: "Secret name; its value comes from CONVEYOR_SECRET_<NAME> at apply time or stays as stored." }),
  })
  .meta({ id: "SecretRef", description: "A reference to a secret value, which is never written to files." });
export type SecretRef = z.infer<typeof SecretRefSchema>;

export const isSecretRef = (v: unknown): v is SecretRef =>
  !!v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 1 && typeof (v as SecretRef).secret === "string";

/** `webhook-bearer` → `CONVEYOR_SECRET_WEBHOOK_BEARER` */
export function secretEnvName(name: string): string {
  return `CONVEYOR_SECRET_${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}

const n = GraphNodeSchema.shape;
export const SpecNodeSchema = z.strictObject({
  id: n.id,
  name: n.name,
  key: n.key,
  connection: z.string().min(1).max(200).optional().meta({ description: "Connection name in the workspace (resolved to its id at apply)." }),
  config: z.record(z.string(), z.unknown()).default({}).meta({ description: "Node settings; secret fields hold { secret: <name> }." }),
  disabled: n.disabled,
  position: n.position,
  notes: n.notes,
});
export type SpecNode = z.output<typeof SpecNodeSchema>;

export const AppSpecSchema = z
  .strictObject({
    key: ResourceKeySchema,
    name: z.string().trim().min(1).max(200),
    description: z.string().max(5000).optional(),
    enabled: z.boolean().default(false),
    concurrency: z.number().int().min(1).max(1000).default(5),
    errorHandler: ResourceKeySchema.optional().meta({ description: "Key of the automation started with a failed run's summary." }),
    graph: z.strictObject({
      // The editor's own limit (GraphSchema): every automation it saves must export to a file that applies back.
      nodes: z.array(SpecNodeSchema).max(MAX_GRAPH_NODES, `An automation holds at most ${MAX_GRAPH_NODES} nodes`),
      edges: z.array(GraphEdgeSchema.strict()).max(2000).default([]),
      notes: z.array(GraphNoteSchema.strict()).max(500).optional(),
    }),
  })
  .meta({ id: "AppSpec", description: "An automation as a file: its key, settings and graph, connections by name, secrets by reference." });
export type AppSpec = z.output<typeof AppSpecSchema>;

export const LineSpecSchema = z
  .strictObject({
    key: ResourceKeySchema,
    name: z.string().trim().min(1).max(100),
    steps: z
      .array(
        z.strictObject({
          name: z.string().trim().min(1).max(100),
          automation: ResourceKeySchema.meta({ description: "Key of the automation run by this step." }),
        }),
      )
      .max(50)
      .default([]),
  })
  .meta({ id: "LineSpec", description: "A line as a file: ordered steps naming automations by key." });
export type LineSpec = z.output<typeof LineSpecSchema>;

export const IntakeSpecSchema = z
  .strictObject({
    key: ResourceKeySchema,
    name: z.string().trim().min(1).max(100),
    line: ResourceKeySchema.meta({ description: "Key of the line that tasks are placed on." }),
    open: z.boolean().default(true),
    secret: SecretRefSchema.meta({ description: "The secret senders sign with (or send as a bearer token); its value comes from CONVEYOR_SECRET_<NAME>." }),
    requireTimestampedSignature: z
      .boolean()
      .optional()
      .meta({ description: "Accept only timestamped signatures (`X-Conveyor-Signature: t=…,v1=…`); left out: false." }),
    signatureToleranceSeconds: z
      .number()
      .int()
      .min(5)
      .max(3600)
      .optional()
      .meta({ description: "Tolerance of a timestamped signature's time, in seconds; left out: the installation's." }),
  })
  .meta({ id: "IntakeSpec", description: "A webhook intake as a file (a JSON POST creates a task on the line)." });
export type IntakeSpec = z.output<typeof IntakeSpecSchema>;

/** Automations, lines and intakes per import (each kind). */
export const MAX_BUNDLE_RESOURCES = 1000;

/**
 * The format of the files (`apiVersion:` in each), written by export and checked before anything
 * else when a file is read, so that a file from a newer Conveyor says so instead of failing on fields
 * this one does not know. A file without it (exported before it existed) reads as this format.
 */
export const FILES_API_VERSION = "conveyor/v1";
const tooMany = (what: string) => `At most ${MAX_BUNDLE_RESOURCES} ${what} per apply`;
export const BundleSchema = z.object({
  apps: z.array(AppSpecSchema).max(MAX_BUNDLE_RESOURCES, tooMany("automations")).default([]),
  lines: z.array(LineSpecSchema).max(MAX_BUNDLE_RESOURCES, tooMany("lines")).default([]),
  intakes: z.array(IntakeSpecSchema).max(MAX_BUNDLE_RESOURCES, tooMany("intakes")).default([]),
});
export type Bundle = z.output<typeof BundleSchema>;

export const ExportBundleSchema = BundleSchema.extend({
  workspace: z.object({ id: z.string(), name: z.string() }),
}).meta({
  id: "ExportBundle",
  description: "Every automation, line and webhook intake of a workspace in file form (keys, connection names, secret references).",
});

// Strict (like every request body): a misspelt flag such as `dryrun` must not be dropped, or a plan
// that was asked for is applied.
export const ImportBodySchema = z
  .strictObject({
    ...BundleSchema.shape,
    dryRun: z.boolean().default(false).meta({ description: "Plan only: validate and report what would change, write nothing." }),
    prune: z.boolean().default(false).meta({ description: "Delete automations, lines and webhook intakes that are not in the bundle." }),
    force: z.boolean().default(false).meta({ description: "Apply even over changes made outside the files since the last apply." }),
    secrets: z.record(z.string().regex(SECRET_NAME_RE), z.string().min(1).max(10_000)).default({}).meta({
      description: "Values for secret references (write-only; never returned or logged). A reference without a value keeps the stored one.",
    }),
    source: z
      .strictObject({
        repository: z.string().max(500).optional(),
        commit: z.string().max(100).optional(),
        files: z
          .record(z.string(), z.string().max(1000))
          .default({})
          .meta({ description: "File of each resource, by `automation/<key>`, `line/<key>` or `intake/<key>`." }),
      })
      .default({ files: {} })
      .meta({ description: "Where the bundle comes from, recorded on each applied resource (shown in the editor)." }),
  })
  .meta({ id: "ImportBody", description: "Apply (or with dryRun, plan) a bundle: all or nothing." });
export type ImportBody = z.input<typeof ImportBodySchema>;

export const ResourceKindSchema = z.enum(["automation", "line", "intake"]);
export type ResourceKind = z.infer<typeof ResourceKindSchema>;

export const FieldChangeSchema = z.object({
  path: z.string().meta({ description: "Readable path, nodes by name: `graph.nodes[silence].config.duration`." }),
  op: z.enum(["add", "remove", "change"]),
  before: z.unknown().optional(),
  after: z.unknown().optional(),
  secret: z.boolean().optional().meta({ description: "A secret value changes (values are never shown)." }),
});
export type FieldChange = z.infer<typeof FieldChangeSchema>;

export const PlanEntrySchema = z.object({
  kind: ResourceKindSchema,
  key: z.string(),
  id: z.string().nullable(),
  action: z
    .enum(["create", "update", "delete", "unchanged", "unmanaged"])
    .meta({ description: "`unmanaged`: in the workspace but not in the bundle (deleted only with prune)." }),
  file: z.string().nullable(),
  changes: z.array(FieldChangeSchema),
});
export type PlanEntry = z.infer<typeof PlanEntrySchema>;

export const ConflictSchema = z.object({
  kind: ResourceKindSchema,
  key: z.string(),
  id: z.string(),
  message: z.string(),
});

export const ImportResultSchema = z
  .object({
    dryRun: z.boolean(),
    applied: z.boolean(),
    summary: z.object({
      create: z.number().int(),
      update: z.number().int(),
      delete: z.number().int(),
      unchanged: z.number().int(),
      unmanaged: z.number().int(),
    }),
    entries: z.array(PlanEntrySchema),
    conflicts: z.array(ConflictSchema).meta({ description: "Resources changed outside the files since the last apply; apply refuses (409) unless force." }),
    setupProblems: z.array(z.object({ key: z.string(), nodeId: z.string(), message: z.string() })).default([]),
  })
  .meta({ id: "ImportResult" });
export type ImportResult = z.infer<typeof ImportResultSchema>;
