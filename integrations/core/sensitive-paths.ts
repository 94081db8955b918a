/** Which fields of a unit's settings are secrets: pure, shared by the server and the editor bundle. */
import type { JsonSchema } from "./catalog-types";

/** Paths (dotted) of fields marked `sensitive` in a JSON Schema. */
export function sensitivePaths(schema: JsonSchema, prefix = ""): string[] {
  const out: string[] = [];
  if (schema.sensitive === true) out.push(prefix);
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  for (const [k, v] of Object.entries(props ?? {})) out.push(...sensitivePaths(v, prefix ? `${prefix}.${k}` : k));
  for (const key of ["anyOf", "oneOf", "allOf"]) for (const s of (schema[key] as JsonSchema[] | undefined) ?? []) out.push(...sensitivePaths(s, prefix));
  if (schema.items && typeof schema.items === "object") out.push(...sensitivePaths(schema.items as JsonSchema, prefix ? `${prefix}.*` : "*"));
  return [...new Set(out)];
}
