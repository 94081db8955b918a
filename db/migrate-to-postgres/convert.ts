/**
 * Row conversion for the copy, and the key digest both sides are compared by.
 *
 * Values go to PostgreSQL as text arrays (one array per column, inserted with `unnest`), so:
 * - text → the string (a NUL character cannot be stored in PostgreSQL text: refused, naming the row);
 * - json → the stored JSON text verbatim (cast to json on the server: key order and spacing survive);
 * - boolean → `value = 1` (what drizzle reads from SQLite's integer booleans);
 * - bigint → the integer's decimal digits (read from SQLite as BigInt, so nothing above 2^53 is rounded).
 */
import { createHash } from "node:crypto";
import type { ColumnKind, TablePlan } from "./plan";

export type PgValue = string | boolean | null;

export class ConversionError extends Error {
  constructor(table: string, column: string, rowid: bigint, why: string) {
    super(`${table}.${column} of SQLite row ${rowid} ${why}; fix that row in SQLite and run again (nothing was copied)`);
    this.name = "ConversionError";
  }
}

function convert(kind: ColumnKind, v: unknown, fail: (why: string) => never): PgValue {
  if (v === null || v === undefined) return null;
  if (Buffer.isBuffer(v)) fail("holds binary data, which the schema does not expect");
  switch (kind) {
    case "text":
    case "json": {
      const s = typeof v === "string" ? v : String(v);
      if (s.includes("\u0000")) fail("contains a NUL character, which PostgreSQL text cannot hold");
      return s;
    }
    case "boolean":
      return Number(v) === 1;
    case "bigint": {
      if (typeof v === "bigint") return v.toString();
      if (typeof v === "number" && Number.isInteger(v)) return BigInt(v).toString();
      if (typeof v === "string" && /^-?\d+$/.test(v.trim())) return v.trim();
      return fail(`holds ${JSON.stringify(v)}, not an integer`);
    }
  }
}

/** Converts one raw SQLite row (columns in plan order, integers as BigInt) to PostgreSQL values. */
export function rowConverter(table: TablePlan): (raw: unknown[], rowid: bigint) => PgValue[] {
  const cols = table.columns;
  return (raw, rowid) =>
    cols.map((c, i) =>
      convert(c.kind, raw[i], (why) => {
        throw new ConversionError(table.name, c.name, rowid, why);
      }),
    );
}

/** Text of a value as PostgreSQL's `::text` gives it (booleans are `true`/`false`). */
function asText(v: PgValue): string | null {
  return v === null ? null : typeof v === "boolean" ? String(v) : v;
}

/**
 * An order-independent digest of a table's row keys: the sum of the first 60 bits of md5(key) over
 * every row, where key = the key columns' text joined by U+001F (NULLs skipped), as `keyDigestSql`
 * computes it on PostgreSQL. Equal sums with equal counts mean the same set of keys, whatever the
 * order rows were read in.
 */
export class KeyDigest {
  count = 0n;
  sum = 0n;
  private readonly idx: number[];
  constructor(table: TablePlan) {
    this.idx = table.keyColumns.map((k) => table.columns.findIndex((c) => c.name === k));
  }
  add(row: PgValue[]): void {
    const key = this.idx
      .map((i) => asText(row[i]!))
      .filter((x): x is string => x !== null)
      .join("\u001f");
    this.count++;
    this.sum += BigInt(`0x${createHash("md5").update(key, "utf8").digest("hex").slice(0, 15)}`);
  }
}

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
export { q as quoteIdent };

/** The same digest computed by PostgreSQL in one pass: `select n, digest`. */
export function keyDigestSql(table: TablePlan): string {
  const key = `concat_ws(chr(31), ${table.keyColumns.map((c) => `${q(c)}::text`).join(", ")})`;
  return `select count(*)::text as n, coalesce(sum(('x' || substr(md5(${key}), 1, 15))::bit(60)::bigint), 0)::text as digest from ${q(table.name)}`;
}

/**
 * Jobs in flight: a step job leased by a runner of the (stopped) SQLite installation goes back to
 * `queued` with no lease, and counts a stop in its payload exactly as a runner taking over an expired
 * lease would (so the quarantine after repeated worker deaths keeps counting). Returns whether it
 * reset a lease. Other jobs are copied as they are.
 */
export function jobsTransform(table: TablePlan): (row: PgValue[]) => boolean {
  const at = (name: string) => {
    const i = table.columns.findIndex((c) => c.name === name);
    if (i < 0) throw new Error(`migrate-to-postgres: jobs.${name} is missing from the schema; update db/migrate-to-postgres/convert.ts`);
    return i;
  };
  const [status, owner, token, until, payload] = ["status", "lease_owner", "lease_token", "lease_until", "payload"].map(at) as [
    number,
    number,
    number,
    number,
    number,
  ];
  return (row) => {
    if (row[status] !== "leased") return false;
    row[status] = "queued";
    row[owner] = null;
    row[token] = null;
    row[until] = null;
    if (typeof row[payload] === "string") {
      const p = JSON.parse(row[payload] as string) as Record<string, unknown>;
      p.stops = (typeof p.stops === "number" ? p.stops : 0) + 1;
      row[payload] = JSON.stringify(p);
    }
    return true;
  };
}
