/**
 * Definitions → a serializable catalog for the editor (tRPC catalog.list) and REST (GET /api/v1/catalog).
 * Config schemas become JSON Schema (`io: "input"`, so defaulted fields are optional) carrying the
 * UI meta keys; integration code itself never reaches the browser.
 */
import { z } from "zod";
import { listIntegrations } from "../registry";
import type { CatalogIntegration, CatalogUnit, JsonSchema } from "./catalog-types";
import type { AnyComponent, AnyIntegration, AnyTrigger } from "./define";

export type { CatalogIntegration, CatalogUnit, JsonSchema };
export { sensitivePaths } from "./sensitive-paths";

export function toJsonSchema(schema: z.ZodType, io: "input" | "output" = "input"): JsonSchema {
  const out = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  delete out.$schema;
  return out;
}

function unit(u: AnyComponent | AnyTrigger): CatalogUnit {
  return {
    kind: u.kind,
    key: u.key,
    title: u.title,
    description: u.description,
    docs: u.docs ?? null,
    needsConnection: u.needsConnection !== false,
    delivery: u.kind === "trigger" ? u.delivery : null,
    config: toJsonSchema(u.config),
    outputType: u.outputType,
    output: toJsonSchema(u.output, "output"),
    example: u.example,
  };
}

export function describeIntegration(i: AnyIntegration): CatalogIntegration {
  return {
    key: i.key,
    title: i.title,
    description: i.description,
    icon: i.icon,
    connection: i.connection ? { kind: i.connection.kind, schema: toJsonSchema(i.connection.schema) } : null,
    resources: Object.keys(i.resources ?? {}),
    components: i.components.map(unit),
    triggers: i.triggers.map(unit),
  };
}

let cached: CatalogIntegration[] | undefined;

export function buildCatalog(): CatalogIntegration[] {
  cached ??= listIntegrations().map(describeIntegration);
  return cached;
}

