/** Editor-side types. The catalog types are the server's own (integrations/core/catalog-types.ts). */
import type { Edge, Node } from "@xyflow/react";
import type { CatalogIntegration, CatalogUnit, JsonSchema } from "@/integrations/core/catalog-types";
import type { Graph, PinnedData } from "@/server/contracts/graph";

export type { CatalogIntegration, CatalogUnit, JsonSchema, PinnedData };

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
