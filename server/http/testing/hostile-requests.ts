/**
 * fast-check generators of hostile requests, derived from the served OpenAPI document: every
 * operation's path, parameters and request body schema, then broken on purpose (wrong types,
 * unknown fields, missing fields, deep nesting, huge strings, broken escapes, forged cursors, wrong
 * content types, missing or forged credentials).
 */
import fc from "fast-check";

type Schema = Record<string, any>;
export interface DocOperation {
  method: string;
  path: string;
  params: string[];
  query: string[];
  body: Schema | null;
}

export function operationsOf(doc: { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, Schema> } }): DocOperation[] {
  const out: DocOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const params = (op.parameters ?? []) as Array<{ in: string; name: string }>;
      out.push({
        method: method.toUpperCase(),
        path,
        params: params.filter((p) => p.in === "path").map((p) => p.name),
        query: params.filter((p) => p.in === "query").map((p) => p.name),
        body: op.requestBody?.content?.["application/json"]?.schema ?? null,
      });
    }
  }
  return out;
}

/** A minimal value satisfying `schema` (crude: enough to get past the first field checks). */
export function sampleOf(schema: Schema | undefined, defs: Record<string, Schema>, depth = 0): unknown {
  if (!schema || depth > 8) return null;
  if (schema.$ref) return sampleOf(defs[String(schema.$ref).split("/").pop()!], defs, depth + 1);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const alt = schema.oneOf ?? schema.anyOf;
  if (alt) return sampleOf(alt[0], defs, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "object": {
      const obj: Record<string, unknown> = {};
      for (const key of schema.required ?? []) obj[key] = sampleOf(schema.properties?.[key], defs, depth + 1);
      return obj;
    }
    case "array":
      return [];
    case "string":
      return schema.format === "date-time" ? new Date(0).toISOString() : "x".repeat(Math.max(1, schema.minLength ?? 1));
    case "integer":
    case "number":
      return schema.minimum ?? 1;
    case "boolean":
      return true;
    default:
      return null;
  }
}

const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
const BROKEN_ESCAPES = ["%ZZ", "%", "%E0%A4%A", "%C0%AF", "%FF", "a%2", "%%"];
const TRICKY = ["..", "%2e%2e", "%2F", "%00", "💥", "<script>", "' OR 1=1 --", "{{ $env }}", "${7*7}", "\\", "null", "0", "-1", "ws_" + "a".repeat(300)];

export const pathSegment = (real: string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...real) },
    { weight: 2, arbitrary: fc.constantFrom(...BROKEN_ESCAPES, ...TRICKY.map(encodeURIComponent)) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 40 }).map(encodeURIComponent) },
  );

export const cursorValue = (valid: string | null) =>
  fc.oneof(
    fc.constantFrom(...(valid ? [valid, valid.replace(/.$/, (c) => (c === "A" ? "B" : "A"))] : []), "%ZZ", "", "....", "a".repeat(600)),
    fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v)).toString("base64url")),
    fc.jsonValue().map((v) => `${Buffer.from(JSON.stringify(v)).toString("base64url")}.AAAAAAAAAAAAAAAA`),
    fc.string({ maxLength: 60 }),
  );

export const queryString = (names: string[], validCursor: string | null) =>
  fc
    .array(
      fc.oneof(
        fc.tuple(fc.constant("limit"), fc.constantFrom("-1", "0", "1", "50", "201", "abc", "1e400", "2.5", "")),
        fc.tuple(fc.constant("cursor"), cursorValue(validCursor)),
        fc.tuple(fc.constantFrom(...(names.length ? names : ["x"])), fc.string({ maxLength: 30 })),
        fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), fc.string({ maxLength: 12 })),
      ),
      { maxLength: 4 },
    )
    .map((pairs) =>
      pairs.length
        ? "?" + pairs.map(([k, v]) => (v === "%ZZ" ? `${encodeURIComponent(k)}=%ZZ` : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)).join("&")
        : "",
    );

export interface HostileBody {
  raw: string;
  contentType: string | null;
}

/** Bodies aimed at one schema: near-valid ones broken in one way, plus generic garbage. */
export function hostileBody(schema: Schema | null, defs: Record<string, Schema>): fc.Arbitrary<HostileBody> {
  const base = (schema ? sampleOf(schema, defs) : {}) as Record<string, unknown>;
  const resolved = schema?.$ref ? (defs[String(schema.$ref).split("/").pop()!] ?? {}) : (schema ?? {});
  const keys = Object.keys(resolved.properties ?? {});
  const json = (v: unknown) => ({ raw: JSON.stringify(v), contentType: "application/json" as string | null });
  const isObj = base && typeof base === "object" && !Array.isArray(base);
  return fc.oneof(
    // an unknown field next to valid ones
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.string({ minLength: 1, maxLength: 20 }), fc.jsonValue())
        .filter(([k]) => !keys.includes(k) && k !== "__proto__")
        .map(([k, v]) => json(isObj ? { ...base, [k]: v } : { [k]: v })),
    },
    // a known field with a value of the wrong type
    {
      weight: 3,
      arbitrary: fc.tuple(fc.constantFrom(...(keys.length ? keys : ["name"])), fc.jsonValue()).map(([k, v]) => json(isObj ? { ...base, [k]: v } : { [k]: v })),
    },
    // a required field missing
    { weight: 1, arbitrary: fc.constant(json(isObj ? Object.fromEntries(Object.entries(base).slice(1)) : {})) },
    // not an object at all
    {
      weight: 2,
      arbitrary: fc
        .jsonValue()
        .filter((v) => v === null || typeof v !== "object" || Array.isArray(v))
        .map(json),
    },
    // nested far deeper than the limit, inside a plausible field
    {
      weight: 2,
      arbitrary: fc.integer({ min: 65, max: 100_000 }).map((n) => ({ raw: `{"${keys[0] ?? "data"}":${deep(n)}}`, contentType: "application/json" })),
    },
    // huge strings (some over the 1 MiB body limit)
    { weight: 1, arbitrary: fc.constantFrom(20_000, 300_000, 1_100_000).map((n) => json({ ...(isObj ? base : {}), [keys[0] ?? "name"]: "x".repeat(n) })) },
    // malformed JSON text
    {
      weight: 2,
      arbitrary: fc
        .constantFrom("{", '{"a":', "[1,2", '{"a":"\\x"}', "\uFEFF{}", "nul", '{"a":1}}', "{'a':1}", "NaN", '"\\ud800"')
        .map((raw) => ({ raw, contentType: "application/json" })),
    },
    // the wrong content type, or none
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml", null), fc.jsonValue())
        .map(([ct, v]) => ({ raw: JSON.stringify(v) ?? "null", contentType: ct })),
    },
    // plain garbage
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }).map((raw) => ({ raw, contentType: "application/json" })) },
  );
}

export type Credential = { label: string; header: string | null; role: string | null };
export const credential = (keys: Record<string, string>) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...Object.entries(keys).map(([role, key]) => ({ label: role, header: `Bearer ${key}`, role }))) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<Credential>(
        { label: "none", header: null, role: null },
        { label: "garbage", header: "Bearer garbage", role: null },
        { label: "basic", header: "Basic YWRtaW46YWRtaW4=", role: null },
        { label: "forged", header: `Bearer cvk_abcdefgh_${"x".repeat(43)}`, role: null },
        { label: "empty", header: "Bearer ", role: null },
      ),
    },
  );
