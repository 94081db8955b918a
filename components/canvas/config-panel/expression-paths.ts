/** Autocomplete paths for `{{ }}` expressions, from upstream nodes' output schemas, examples and last run. */
import type { JsonSchema } from "../types";

export interface ExpressionPath {
  path: string;
  type: string;
  /** Short rendering of a sample value, when one is known. */
  sample?: string;
  source: "schema" | "example" | "run" | "test event";
}

const MAX_DEPTH = 6;

function typeOf(v: unknown) {
  if (Array.isArray(v)) return "array";
  if (v === null) return "null";
  return typeof v;
}

function short(v: unknown) {
  const s = typeof v === "string" ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  return s.length > 40 ? s.slice(0, 39) + "…" : s;
}

const seg = (key: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `.\`${key}\``);

export function pathsFromValue(root: string, value: unknown, source: ExpressionPath["source"], out: ExpressionPath[] = [], depth = 0): ExpressionPath[] {
  out.push({ path: root, type: typeOf(value), sample: typeof value === "object" && value !== null ? undefined : short(value), source });
  if (depth >= MAX_DEPTH || value === null || typeof value !== "object") return out;
  if (Array.isArray(value)) {
    if (value.length) pathsFromValue(`${root}[0]`, value[0], source, out, depth + 1);
    return out;
  }
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) pathsFromValue(root + seg(k), v, source, out, depth + 1);
  return out;
}

export function pathsFromSchema(root: string, schema: JsonSchema | undefined, out: ExpressionPath[] = [], depth = 0): ExpressionPath[] {
  if (!schema) return out;
  const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== "null") ?? "any") : (schema.type ?? "any");
  out.push({ path: root, type, source: "schema" });
  if (depth >= MAX_DEPTH) return out;
  if (schema.properties) for (const [k, p] of Object.entries(schema.properties)) pathsFromSchema(root + seg(k), p, out, depth + 1);
  if (type === "array" && schema.items) pathsFromSchema(`${root}[0]`, schema.items, out, depth + 1);
  return out;
}

/** Merges several sources; a real value (run / test event / example) wins over the bare schema entry. */
export function mergePaths(...lists: ExpressionPath[][]): ExpressionPath[] {
  const rank = { "test event": 0, run: 1, example: 2, schema: 3 } as const;
  const byPath = new Map<string, ExpressionPath>();
  for (const list of lists) {
    for (const p of list) {
      const have = byPath.get(p.path);
      if (!have || rank[p.source] < rank[have.source]) byPath.set(p.path, p);
    }
  }
  return [...byPath.values()];
}

/** Paths for an envelope `{type, timestamp, data}` rooted at `$trigger` or `$steps.<name>`. */
export function envelopePaths(root: string, args: { outputSchema?: JsonSchema; example?: unknown; lastRun?: unknown; testEvent?: unknown }): ExpressionPath[] {
  const schemaEnv: JsonSchema = {
    type: "object",
    properties: { type: { type: "string" }, timestamp: { type: "string" }, data: args.outputSchema ?? { type: "object" } },
  };
  return mergePaths(
    pathsFromSchema(root, schemaEnv),
    args.example !== undefined
      ? pathsFromValue(root, { type: "", timestamp: "", data: args.example }, "example").filter((p) => p.path.startsWith(`${root}.data`))
      : [],
    args.lastRun !== undefined ? pathsFromValue(root, args.lastRun, "run") : [],
    args.testEvent !== undefined ? pathsFromValue(root, args.testEvent, "test event") : [],
  );
}
