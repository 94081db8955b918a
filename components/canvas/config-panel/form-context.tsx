"use client";
/** What generated fields need from around them (resource loading, expression data, server problems). */
import { createContext, useContext } from "react";
import type { ExpressionPath } from "./expression-paths";

export interface ResourcePage {
  options: Array<{ value: string; label: string; description?: string }>;
  nextCursor?: string | null;
}

export interface FormEnv {
  /** Prefix for element ids (unique per node). */
  idPrefix: string;
  /** The node's whole config (dependent pickers read sibling values). */
  config: Record<string, unknown>;
  /** Server problems keyed by config path (`matchers.0.value`). */
  problems: Record<string, string>;
  /** Server warnings (never block enabling) keyed by config path. */
  warnings?: Record<string, string>;
  /** Display names of picked values by config path (resource pickers show "Bug", not 10002). */
  labels?: Record<string, { value: string; label: string }>;
  /** Called by a picker with the label of the value it is about to set (null: no label). */
  setLabel?: (path: string, entry: { value: string; label: string } | null) => void;
  loadResources?: (args: { type: string; config: Record<string, unknown>; search?: string; cursor?: string }) => Promise<ResourcePage>;
  /** `$trigger…` / `$steps…` paths offered by autocomplete. */
  expressionPaths: ExpressionPath[];
  /** Data expressions are previewed against: `{ trigger, steps }`. */
  sample?: { trigger?: unknown; steps: Record<string, unknown> };
  sampleSource?: string;
  readOnly?: boolean;
}

const Ctx = createContext<FormEnv>({ idPrefix: "f", config: {}, problems: {}, expressionPaths: [], sample: { steps: {} } });

export const FormEnvProvider = Ctx.Provider;
export const useFormEnv = () => useContext(Ctx);

export function fieldId(env: FormEnv, path: string) {
  return `${env.idPrefix}-${path.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}
