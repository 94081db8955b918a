/**
 * Pure helpers of the output viewer: JSON lines that read exactly like `JSON.stringify(v, null, 2)`
 * (each with the expression path of its value), leaf rows for the table view, an inferred schema,
 * and expression paths in JSONata syntax (`$steps.x.data.labels.\`app.kubernetes.io/name\``).
 */
export type Path = Array<string | number>;

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `base` + path as a JSONata path: names dotted (back-quoted when needed), indexes in brackets. */
export function expressionPath(base: string, path: Path): string {
  let out = base;
  for (const seg of path) out += typeof seg === "number" ? `[${seg}]` : IDENT.test(seg) ? `.${seg}` : `.\`${seg.replace(/`/g, "\\`")}\``;
  return out;
}

export interface JsonLine {
  indent: number;
  /** `"key": ` for object members, empty for array items and the root. */
  key: string;
  /** The value's text on this line (`"x"`, `12`, `{`, `[]`, `}` …). */
  text: string;
  /** `,` when another member follows. */
  comma: string;
  /** Path of the value that starts on this line; null for closing brackets. */
  path: Path | null;
  kind: "string" | "number" | "boolean" | "null" | "open" | "close" | "empty";
}

/** Lines of `JSON.stringify(value, null, 2)`, with paths. */
export function jsonLines(value: unknown): JsonLine[] {
  const out: JsonLine[] = [];
  const walk = (v: unknown, path: Path, indent: number, key: string, comma: string) => {
    if (v === undefined) v = null;
    if (Array.isArray(v) || (v && typeof v === "object")) {
      const entries: Array<[string | number, unknown]> = Array.isArray(v)
        ? v.map((x, i) => [i, x])
        : Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined && typeof x !== "function");
      const [open, close] = Array.isArray(v) ? ["[", "]"] : ["{", "}"];
      if (!entries.length) {
        out.push({ indent, key, text: open + close, comma, path, kind: "empty" });
        return;
      }
      out.push({ indent, key, text: open, comma: "", path, kind: "open" });
      entries.forEach(([k, x], i) =>
        walk(x, [...path, k], indent + 1, typeof k === "number" ? "" : `${JSON.stringify(k)}: `, i < entries.length - 1 ? "," : ""),
      );
      out.push({ indent, key: "", text: close, comma, path: null, kind: "close" });
      return;
    }
    const kind = v === null ? "null" : typeof v === "string" ? "string" : typeof v === "number" ? "number" : "boolean";
    out.push({ indent, key, text: JSON.stringify(v), comma, path, kind });
  };
  walk(value, [], 0, "", "");
  return out;
}

/** The text of `jsonLines` (equal to `JSON.stringify(value, null, 2)`). */
export const linesText = (lines: JsonLine[]) => lines.map((l) => `${"  ".repeat(l.indent)}${l.key}${l.text}${l.comma}`).join("\n");

export interface LeafRow {
  path: Path;
  value: unknown;
}

/** Every leaf (primitive, empty array or object) with its path, depth first, up to `limit` rows. */
export function leaves(value: unknown, limit = 500): LeafRow[] {
  const out: LeafRow[] = [];
  const walk = (v: unknown, path: Path) => {
    if (out.length >= limit) return;
    if (Array.isArray(v) && v.length) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length) for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
    else out.push({ path, value: v });
  };
  walk(value, []);
  return out;
}

/** An array of objects as a table: columns are the keys (first seen first), capped. */
export function asRecords(value: unknown, maxColumns = 12): { columns: string[]; rows: Array<Record<string, unknown>> } | null {
  if (!Array.isArray(value) || !value.length || !value.every((x) => x && typeof x === "object" && !Array.isArray(x))) return null;
  const columns: string[] = [];
  for (const row of value as Array<Record<string, unknown>>)
    for (const k of Object.keys(row)) if (!columns.includes(k) && columns.length < maxColumns) columns.push(k);
  return { columns, rows: value as Array<Record<string, unknown>> };
}

export interface SchemaNode {
  path: Path;
  /** Display key (`silenceID`, `[]` for array items). */
  key: string;
  type: string;
  depth: number;
}

function typeOf(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/**
 * The shape of a value: one row per field, array items merged (a field is listed once with every
 * type it has, e.g. `string | null`); item paths use index 0, as an expression would.
 */
export function inferSchema(value: unknown): SchemaNode[] {
  const out: SchemaNode[] = [];
  const walk = (samples: unknown[], path: Path, key: string, depth: number) => {
    const types = [...new Set(samples.map(typeOf))];
    const arrays = samples.filter(Array.isArray) as unknown[][];
    const items = arrays.flat();
    const itemTypes = [...new Set(items.map(typeOf))];
    const shown = types.map((t) => (t === "array" ? `array<${itemTypes.join(" | ") || "empty"}>` : t)).join(" | ");
    out.push({ path, key, type: shown, depth });
    const objects = samples.filter((s) => typeOf(s) === "object") as Array<Record<string, unknown>>;
    const keys = [...new Set(objects.flatMap((o) => Object.keys(o)))];
    for (const k of keys)
      walk(
        objects.map((o) => o[k]),
        [...path, k],
        k,
        depth + 1,
      );
    const itemObjects = items.filter((s) => typeOf(s) === "object") as Array<Record<string, unknown>>;
    const itemKeys = [...new Set(itemObjects.flatMap((o) => Object.keys(o)))];
    for (const k of itemKeys)
      walk(
        itemObjects.map((o) => o[k]),
        [...path, 0, k],
        `[].${k}`,
        depth + 1,
      );
  };
  walk([value], [], "", 0);
  return out;
}
