/**
 * The JSON Schema of spec files (`npx conveyor schema`; `conveyor export` writes it beside the files
 * and points `$schema` at it), so that editors complete and check them: the file shapes from the
 * zod contracts, and per component key the node's `config` schema from the catalog, where a field
 * that accepts expressions also takes a `{{ … }}` string and a secret field takes `{ secret: name }`.
 */
import { z } from "zod";
import { AppSpecSchema, FILES_API_VERSION, IntakeSpecSchema, LineSpecSchema } from "../contracts/as-code";
import { listIntegrations } from "@/integrations/registry";
import type { JsonSchema } from "./canonical";
import { configSchemaFor } from "./units";

const UI_KEYS = ["widget", "placeholder", "sensitive", "expression", "resource", "visibleWhen", "togglable", "order", "enumLabels", "id"];
const EXPRESSION = { type: "string", pattern: "\\{\\{[\\s\\S]*\\}\\}", description: "A {{ expression }} evaluated at run time." };

function forFiles(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (UI_KEYS.includes(k)) continue;
    if (k === "properties" && v && typeof v === "object") out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, forFiles(s as JsonSchema)]));
    else if ((k === "items" || k === "additionalProperties") && v && typeof v === "object") out[k] = forFiles(v as JsonSchema);
    else if ((k === "anyOf" || k === "oneOf" || k === "allOf") && Array.isArray(v)) out[k] = v.map((s) => forFiles(s as JsonSchema));
    else out[k] = v;
  }
  if (schema.sensitive === true) return { $ref: "#/$defs/SecretRef", ...(schema.title ? { title: schema.title } : {}) };
  if (schema.expression === true)
    return { ...(schema.title ? { title: schema.title } : {}), ...(schema.description ? { description: schema.description } : {}), anyOf: [out, EXPRESSION] };
  return out;
}

/** Shared definitions (zod emits one `$defs` per schema; `#/$defs/…` refs resolve against the root, where they are lifted). */
const lifted: Record<string, JsonSchema> = {};

function fileSchema(kind: string, spec: z.ZodType): JsonSchema {
  const emitted = z.toJSONSchema(spec, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const defs = { ...((emitted.$defs as Record<string, JsonSchema> | undefined) ?? {}) };
  const ref = typeof emitted.$ref === "string" ? emitted.$ref.replace("#/$defs/", "") : null;
  const s = ref ? defs[ref]! : emitted;
  if (ref) delete defs[ref];
  Object.assign(lifted, defs);
  delete s.$schema;
  delete s.$defs;
  const props = s.properties as Record<string, JsonSchema>;
  s.properties = { $schema: { type: "string" }, apiVersion: { const: FILES_API_VERSION }, kind: { const: kind }, ...props };
  s.required = ["kind", ...((s.required as string[] | undefined) ?? [])];
  return s;
}

export function buildFilesJsonSchema(): JsonSchema {
  const units = listIntegrations().flatMap((i) => [...i.triggers, ...i.components]);
  const automation = fileSchema("automation", AppSpecSchema);
  const node = ((automation.properties as Record<string, JsonSchema>).graph!.properties as Record<string, JsonSchema>).nodes!.items as JsonSchema;
  const nodeProps = node.properties as Record<string, JsonSchema>;
  nodeProps.key = { ...nodeProps.key, enum: units.map((u) => u.key) };
  node.allOf = units.map((u) => ({
    if: { properties: { key: { const: u.key } }, required: ["key"] },
    then: { properties: { config: { description: u.title, ...forFiles(configSchemaFor(u.key) ?? {}) } } },
  }));
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "https://conveyor.dev/schemas/automations-as-code.json",
    title: "Conveyor automations as code",
    description: "One automation, line or webhook intake per file (see docs/automations-as-code.md).",
    oneOf: [{ $ref: "#/$defs/AutomationFile" }, { $ref: "#/$defs/LineFile" }, { $ref: "#/$defs/IntakeFile" }],
    $defs: {
      AutomationFile: automation,
      LineFile: fileSchema("line", LineSpecSchema),
      IntakeFile: fileSchema("intake", IntakeSpecSchema),
      ...lifted,
    },
  };
}
