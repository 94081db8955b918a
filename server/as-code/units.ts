/** What the as-code layer needs from the integration registry: config schemas (for order) and secret fields. */
import { findUnit } from "@/integrations/registry";
import { toJsonSchema } from "@/integrations/core/catalog";
import { sensitiveKeyPaths } from "../services/automations/node-secrets";
import type { JsonSchema } from "./canonical";

const schemas = new Map<string, JsonSchema | undefined>();

export function configSchemaFor(componentKey: string): JsonSchema | undefined {
  if (!schemas.has(componentKey)) {
    const unit = findUnit(componentKey)?.unit;
    schemas.set(componentKey, unit ? toJsonSchema(unit.config) : undefined);
  }
  return schemas.get(componentKey);
}

/** Dotted config paths of the unit's secret fields, e.g. `["secret"]` for core.webhook. */
export function secretPathsFor(componentKey: string): string[] {
  return sensitiveKeyPaths(componentKey).map((p) => p.join("."));
}

type Obj = Record<string, unknown>;
export function getPath(obj: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Obj)[k] : undefined), obj);
}

export function setPath(obj: Obj, path: string, value: unknown): Obj {
  const [head, ...rest] = path.split(".") as [string, ...string[]];
  if (!rest.length) return { ...obj, [head]: value };
  const child = obj[head];
  return { ...obj, [head]: setPath(child && typeof child === "object" ? (child as Obj) : {}, rest.join("."), value) };
}

/** Top-level config fields the unit does not declare (typos in hand-written files); null when the unit is unknown. */
export function unknownInputs(componentKey: string, config: Record<string, unknown>): string[] | null {
  const schema = configSchemaFor(componentKey);
  if (!schema) return null;
  const known = new Set<string>();
  const collect = (s: JsonSchema) => {
    for (const k of Object.keys((s.properties as object | undefined) ?? {})) known.add(k);
    for (const alt of ["anyOf", "oneOf", "allOf"]) for (const x of (s[alt] as JsonSchema[] | undefined) ?? []) collect(x);
  };
  collect(schema);
  if (schema.additionalProperties && schema.additionalProperties !== false) return [];
  return Object.keys(config).filter((k) => !known.has(k));
}
