/**
 * Editor-side types. The catalog shape mirrors what `catalog.list` serves (integrations/core/catalog.ts);
 * the editor reads it loosely so that extra keys from the server never break the canvas.
 */
import type { Edge, Node } from "@xyflow/react";
import type { Graph, PinnedData } from "@/server/contracts/graph";

export type { PinnedData };

export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  format?: string;
  additionalProperties?: boolean | JsonSchema;
  // UI meta keys (integrations/core/ui-meta.ts)
  widget?: string;
  placeholder?: string;
  sensitive?: boolean;
  expression?: boolean;
  resource?: { type: string; dependsOn?: string[]; allowCustom?: boolean };
  visibleWhen?: { field: string; equals: unknown };
  togglable?: boolean;
  /** Form-only starting value (new node, enabled section, new row); not a schema default. */
  prefill?: unknown;
  order?: number;
  enumLabels?: Record<string, string>;
  [key: string]: unknown;
}

export interface CatalogUnit {
  kind: "trigger" | "component";
  key: string;
  title: string;
  description: string;
  docs?: string | null;
  needsConnection: boolean;
  delivery?: string | null;
  config: JsonSchema;
  outputType: string;
  output?: JsonSchema;
  example?: unknown;
}

export interface CatalogIntegration {
  key: string;
  title: string;
  description: string;
  icon: string;
  connection: { kind: "form" | "oauth2"; schema: JsonSchema } | null;
  resources: string[];
  components: CatalogUnit[];
  triggers: CatalogUnit[];
}

/** A unit with its integration, as the editor uses it. */
export interface PaletteUnit extends CatalogUnit {
  integration: CatalogIntegration;
}

/** Display names of picked values by config path (see NodeLabelsSchema in server/contracts/graph.ts). */
export type NodeLabels = Record<string, { value: string; label: string }>;

export interface FlowNodeData extends Record<string, unknown> {
  key: string;
  name: string;
  config: Record<string, unknown>;
  connectionId?: string | null;
  labels?: NodeLabels;
  /** Skipped in runs (events flow through it); shown greyed. */
  disabled?: boolean;
  /** Pinned output: used by test runs instead of calling the node's upstream; never by production runs. */
  pinned?: PinnedData;
}

export interface NoteData extends Record<string, unknown> {
  text: string;
}

export type FlowNode = Node<FlowNodeData, "trigger" | "component"> | Node<NoteData, "note">;
export type FlowEdge = Edge;

/** The automation document's graph (DESIGN.md "The automation document"), from the shared contract. */
export type GraphDoc = Graph;

export interface Problem {
  path: string;
  message: string;
  nodeId?: string;
  /** "warning" never blocks enabling; absent means error. */
  severity?: "error" | "warning";
}

export const isWarning = (p: Pick<Problem, "severity">) => p.severity === "warning";

export function isUnitNode(n: FlowNode): n is Node<FlowNodeData, "trigger" | "component"> {
  return n.type === "trigger" || n.type === "component";
}
