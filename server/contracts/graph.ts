/**
 * The automation graph (isomorphic: the editor, REST/OpenAPI and the services import it).
 * Nodes are triggers or components by `key`; `name` is unique and is what expressions use
 * (`$steps.<name>`); edges carry one envelope from `from` to `to`.
 */
import { z } from "zod";

export const NODE_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

const LABELS_DESCRIPTION = 'Display names of picked values by config path, e.g. { "issueType": { "value": "10002", "label": "Bug" } }; ignored by the runner.';
const labelCount = (o: Record<string, unknown>) => Object.keys(o).length <= 200;
/**
 * Display names of values picked from lists (resource pickers), by config path: the editor shows
 * "Bug" rather than `10002` after reopening without asking the upstream. The runner ignores them;
 * saving drops entries whose path no longer holds that value.
 */
export const NodeLabelsSchema = z
  .record(z.string().max(300), z.object({ value: z.string().max(2000), label: z.string().max(500) }))
  .refine(labelCount, "At most 200 labels per node")
  .describe(LABELS_DESCRIPTION);
/** The REST request body's variant: an unknown field in an entry is a 422 naming it. */
export const StrictNodeLabelsSchema = z
  .record(z.string().max(300), z.strictObject({ value: z.string().max(2000), label: z.string().max(500) }))
  .refine(labelCount, "At most 200 labels per node")
  .describe(LABELS_DESCRIPTION);
export type NodeLabels = z.output<typeof NodeLabelsSchema>;

/** The value at a dotted config path (`matchers.0.value`). */
export function configValueAt(config: unknown, path: string): unknown {
  let cur = config;
  for (const k of path.split(".")) cur = cur && typeof cur === "object" ? (cur as Record<string, unknown>)[k] : undefined;
  return cur;
}

/** Labels whose path still holds the labelled value (others are stale and dropped). */
export function currentLabels(config: Record<string, unknown>, labels: NodeLabels | undefined): NodeLabels | undefined {
  if (!labels) return undefined;
  const kept = Object.entries(labels).filter(([path, l]) => {
    const v = configValueAt(config, path);
    return v !== undefined && v !== null && String(v) === l.value;
  });
  return kept.length ? Object.fromEntries(kept) : undefined;
}

/** Largest pinned output of one node (bytes of its JSON), as for an emitted envelope. */
export const MAX_PINNED_BYTES = 1_048_576;
/** Largest total of pinned outputs in one document (every saved version keeps a copy). */
export const MAX_PINNED_TOTAL_BYTES = 4 * MAX_PINNED_BYTES;

export const jsonBytes = (v: unknown): number => new TextEncoder().encode(JSON.stringify(v) ?? "").length;

const ENVELOPE_DESCRIPTION = "The envelope later steps read as $steps.<name> (or $trigger).";
const RUN_ID = z.string().max(100).optional().describe("The run it was pinned from, when not typed by hand.");
function pinnedSize(p: { output: unknown }, ctx: z.RefinementCtx): void {
  const n = jsonBytes(p.output);
  if (n > MAX_PINNED_BYTES) ctx.addIssue({ code: "custom", path: ["output"], message: `Pinned data is ${n} bytes, above the ${MAX_PINNED_BYTES}-byte limit` });
}
/**
 * A node's pinned output: used by test runs only (editor "run step" / "run from here", and the
 * `test-runs` endpoint) in place of calling the node's upstream, and as the upstream data of the steps
 * after it. Production runs never read it.
 */
export const PinnedDataSchema = z
  .object({
    output: z.object({ type: z.string().max(200), timestamp: z.string().max(64), data: z.unknown().optional() }).describe(ENVELOPE_DESCRIPTION),
    runId: RUN_ID,
  })
  .superRefine(pinnedSize);
/** The REST request body's variant: a misspelt envelope part (`Data`) is a 422, not dropped. */
export const StrictPinnedDataSchema = z
  .strictObject({
    output: z.strictObject({ type: z.string().max(200), timestamp: z.string().max(64), data: z.unknown().optional() }).describe(ENVELOPE_DESCRIPTION),
    runId: RUN_ID,
  })
  .superRefine(pinnedSize);
export type PinnedData = z.output<typeof PinnedDataSchema>;

export const GraphNodeSchema = z.object({
  id: z.string().min(1).max(100).describe("Stable node id, unique in the graph."),
  name: z
    .string()
    .min(1)
    .max(64)
    .regex(NODE_NAME_RE, "Use letters, digits and _ (not starting with a digit), e.g. createSilence")
    .describe("Unique in the graph; expressions refer to the node as $steps.<name>."),
  key: z.string().min(3).describe("Trigger or component key, e.g. metrics.createSilence."),
  connectionId: z.string().nullish().describe("Connection used by the node (integration nodes)."),
  config: z.record(z.string(), z.unknown()).default({}).describe("Node settings; fields marked expression accept {{ }}."),
  position: z.object({ x: z.number(), y: z.number() }).optional(),
  notes: z.string().max(10_000).optional(),
  labels: NodeLabelsSchema.optional(),
  disabled: z
    .boolean()
    .optional()
    .describe("Skipped in runs: events flow through to its downstream nodes, and $steps.<name> stays absent. A disabled trigger does not fire."),
  pinned: PinnedDataSchema.optional().describe("Pinned output (test runs only; never used by production runs)."),
});

export const GraphEdgeSchema = z.object({
  from: z.string().min(1).describe("Source node id."),
  to: z.string().min(1).describe("Target node id."),
});

export const GraphNoteSchema = z.object({
  id: z.string(),
  text: z.string().max(10_000),
  position: z.object({ x: z.number(), y: z.number() }),
  size: z.object({ width: z.number(), height: z.number() }).optional(),
});

/** Nodes per automation: the editor is measured at this size (docs/editor-bench.md). */
export const MAX_GRAPH_NODES = 1000;

export const GraphSchema = z
  .object({
    nodes: z.array(GraphNodeSchema).max(MAX_GRAPH_NODES),
    edges: z.array(GraphEdgeSchema).max(2000).default([]),
    notes: z.array(GraphNoteSchema).max(500).optional(),
  })
  .superRefine(pinnedTotal);

/** The total size cap of a graph's pinned outputs (shared by the lenient and the strict REST schema). */
export function pinnedTotal(g: { nodes: Array<{ pinned?: { output: unknown } }> }, ctx: z.RefinementCtx): void {
  let total = 0;
  for (const n of g.nodes) if (n.pinned) total += jsonBytes(n.pinned.output);
  if (total > MAX_PINNED_TOTAL_BYTES)
    ctx.addIssue({
      code: "custom",
      path: ["nodes"],
      message: `Pinned data of all nodes is ${total} bytes, above the ${MAX_PINNED_TOTAL_BYTES}-byte limit per automation`,
    });
}

export type GraphNode = z.output<typeof GraphNodeSchema>;
export type GraphEdge = z.output<typeof GraphEdgeSchema>;
export type Graph = z.output<typeof GraphSchema>;
export type GraphInput = z.input<typeof GraphSchema>;
