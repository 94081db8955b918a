/** Reading the catalog's JSON Schema (+ ui-meta keys) into field kinds, defaults and inline checks. */
import type { JsonSchema } from "../types";

export type FieldKind =
  | "text"
  | "textarea"
  | "code"
  | "number"
  | "boolean"
  | "select"
  | "multiselect"
  | "list"
  | "stringList"
  | "keyvalue"
  | "json"
  | "duration"
  | "datetime"
  | "secret"
  | "resource"
  | "object"
  | "union";

export interface Discriminated {
  key: string;
  variants: Array<{ value: string; label: string; schema: JsonSchema }>;
}

/** A union of objects that share one `const` property (e.g. `apiAuth.type`): rendered as a choice + the variant's fields. */
export function discriminated(schema: JsonSchema): Discriminated | null {
  const alts = (schema.oneOf ?? schema.anyOf)?.filter((a) => a.type !== "null");
  if (!alts || alts.length < 2 || !alts.every((a) => a.type === "object" && a.properties)) return null;
  const first = Object.entries(alts[0].properties!).find(([, p]) => p.const !== undefined);
  if (!first) return null;
  const key = first[0];
  if (!alts.every((a) => a.properties![key]?.const !== undefined)) return null;
  return {
    key,
    variants: alts.map((a) => {
      const value = String(a.properties![key].const);
      return { value, label: schema.enumLabels?.[value] ?? a.title ?? humanize(value), schema: a };
    }),
  };
}

/** Drops `null` from `type: [x, "null"]` / `anyOf: [x, {type: null}]` while keeping the ui-meta of the wrapper. */
export function unwrap(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== "null");
    return { ...schema, type: types.length === 1 ? types[0] : types };
  }
  const alts = schema.anyOf ?? schema.oneOf;
  if (alts) {
    const rest = alts.filter((a) => a.type !== "null");
    if (rest.length === 1) {
      const { anyOf: _a, oneOf: _o, ...meta } = schema;
      return { ...rest[0], ...meta };
    }
  }
  return schema;
}

export function enumOptions(schema: JsonSchema): Array<{ value: string; label: string }> | null {
  const s = unwrap(schema);
  let values: unknown[] | null = null;
  if (Array.isArray(s.enum)) values = s.enum;
  else {
    const alts = s.anyOf ?? s.oneOf;
    if (alts && alts.length && alts.every((a) => a.const !== undefined)) values = alts.map((a) => a.const);
  }
  if (!values) return null;
  return values.filter((v) => v !== null).map((v) => ({ value: String(v), label: s.enumLabels?.[String(v)] ?? humanize(String(v)) }));
}

export function fieldKind(schema: JsonSchema): FieldKind {
  const s = unwrap(schema);
  if (s.sensitive) return "secret";
  if (s.resource || s.widget === "resource") return "resource";
  switch (s.widget) {
    case "textarea":
      return "textarea";
    case "code":
      return "code";
    case "json":
      return "json";
    case "duration":
      return "duration";
    case "datetime":
      return "datetime";
    case "keyvalue":
      return "keyvalue";
    case "select":
      return "select";
    case "multiselect":
      return "multiselect";
  }
  if (enumOptions(s)) return "select";
  if (discriminated(s)) return "union";
  if (s.type === "boolean") return "boolean";
  if (s.type === "number" || s.type === "integer") return "number";
  if (s.type === "string") return s.format === "date-time" ? "datetime" : "text";
  if (s.type === "array") {
    const items = unwrap(s.items ?? {});
    if (enumOptions(items)) return "multiselect";
    if (items.type === "object" && items.properties) return "list";
    if (items.type === "string" || items.type === "number") return "stringList";
    return "json";
  }
  if (s.type === "object") {
    if (s.properties && Object.keys(s.properties).length) return "object";
    if (s.additionalProperties && typeof s.additionalProperties === "object" && unwrap(s.additionalProperties).type === "string") return "keyvalue";
    return "json";
  }
  return "json";
}

export function humanize(key: string): string {
  const spaced = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1).toLowerCase();
}

export function labelOf(key: string, schema: JsonSchema) {
  return schema.title ?? unwrap(schema).title ?? humanize(key);
}

export function orderedProperties(schema: JsonSchema): Array<[string, JsonSchema]> {
  const entries = Object.entries(schema.properties ?? {});
  return entries
    .map((e, i) => ({ e, i }))
    .sort((a, b) => (a.e[1].order ?? 1000 + a.i) - (b.e[1].order ?? 1000 + b.i))
    .map((x) => x.e);
}

/** The value a field starts with when added (list row, enabled section): its prefill, its default, or an empty value. */
export function initialValue(schema: JsonSchema): unknown {
  const s = unwrap(schema);
  if (schema.prefill !== undefined) return structuredClone(schema.prefill);
  if (s.default !== undefined) return structuredClone(s.default);
  switch (fieldKind(s)) {
    case "boolean":
      return false;
    case "number":
      return s.minimum ?? 0;
    case "list":
    case "stringList":
    case "multiselect":
      return [];
    case "keyvalue":
      return {};
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [k, p] of Object.entries(s.properties ?? {})) {
        const ps = unwrap(p);
        if (ps.default !== undefined) out[k] = structuredClone(ps.default);
        else if ((s.required ?? []).includes(k)) out[k] = initialValue(ps);
      }
      return out;
    }
    case "json":
      return {};
    default:
      return "";
  }
}

/**
 * The config a new node starts with: every top-level field that carries a `prefill` (a form-only starting
 * value for a required field, e.g. On Alert's Statuses = firing). Fields with schema defaults stay absent.
 */
export function prefillConfig(schema: JsonSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, p] of Object.entries(unwrap(schema).properties ?? {})) if (p.prefill !== undefined) out[k] = structuredClone(p.prefill);
  return out;
}

export const isExpression = (v: unknown) => typeof v === "string" && v.includes("{{");

const DURATION = /^(\d+(ms|s|m|h|d|w))+$/;

/** Inline checks while typing; the server's answer on save is authoritative. */
export function checkValue(schema: JsonSchema, value: unknown, required: boolean): string | null {
  const s = unwrap(schema);
  const empty = value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0);
  if (empty) return required && s.default === undefined ? "Required." : null;
  if (isExpression(value)) {
    const open = (value as string).split("{{").length - 1;
    const close = (value as string).split("}}").length - 1;
    return open === close ? null : "Unclosed {{ }} expression.";
  }
  const kind = fieldKind(s);
  if (kind === "duration" && typeof value === "string" && !DURATION.test(value.trim())) return "Use a duration like 30m, 1h or 2h30m.";
  if (kind === "number") {
    const n = Number(value);
    if (!Number.isFinite(n)) return "Enter a number.";
    if (s.type === "integer" && !Number.isInteger(n)) return "Enter a whole number.";
    if (s.minimum !== undefined && n < s.minimum) return `Must be at least ${s.minimum}.`;
    if (s.maximum !== undefined && s.maximum < 1e15 && n > s.maximum) return `Must be at most ${s.maximum}.`;
  }
  if (typeof value === "string" && typeof s.minLength === "number" && value.length < (s.minLength as number))
    return required ? "Required." : `At least ${s.minLength} characters.`;
  if (Array.isArray(value) && s.minItems && value.length < s.minItems) return `Add at least ${s.minItems}.`;
  return null;
}

/**
 * The greyed hint of an empty field. A schema's own placeholder is an example ("1h", "conveyor"),
 * which in an empty field reads like a value already set (and then "Required." at save): it is
 * shown as "e.g. …". Format hints in capitals ("YYYY-MM-DD") stay as they are, and a default is
 * shown bare, since it is what an omitted value means.
 */
export function placeholderOf(schema: JsonSchema): string | undefined {
  const own = (schema as { placeholder?: unknown }).placeholder;
  if (typeof own === "string" && own) return /^e\.g\./i.test(own) || /^[A-Z][A-Z-]*$/.test(own) ? own : `e.g. ${own}`;
  const d = (schema as { default?: unknown }).default;
  return d !== undefined && typeof d !== "object" ? String(d) : undefined;
}
