/**
 * Named (prepared) statements for the hot paths of the PostgreSQL engine: each connection parses and
 * plans a statement once instead of at every call (node-postgres prepares a named statement on a
 * connection the first time it runs there). Names are given per distinct SQL text, so only static
 * texts belong here (a text built from values would grow the map without bound).
 */
import type pg from "pg";

const names = new Map<string, string>();

export function named<R extends pg.QueryResultRow = pg.QueryResultRow>(
  q: Pick<pg.PoolClient, "query">,
  text: string,
  values: unknown[] = [],
): Promise<pg.QueryResult<R>> {
  let name = names.get(text);
  if (!name) {
    name = `conveyor_${names.size}`;
    names.set(text, name);
  }
  return q.query<R>({ name, text, values });
}

const prepared = new WeakMap<object, Set<string>>();
/** The last PREPARE sent on each connection: the next waits for it (see preparedOn). */
const preparing = new WeakMap<object, Promise<void>>();

/**
 * A statement prepared with SQL `PREPARE` on this connection (once per connection), so it can run as
 * `EXECUTE name(…)` inside a multi-statement string (simple query protocol: one round trip with BEGIN
 * or COMMIT) and still use the plan PostgreSQL cached for it. Returns the `EXECUTE` text for the given
 * SQL literals (see `lit`).
 */
export async function preparedOn(c: pg.PoolClient, name: string, text: string): Promise<(...args: string[]) => string> {
  let names = prepared.get(c);
  if (!names) prepared.set(c, (names = new Set()));
  if (!names.has(name)) {
    // One PREPARE at a time per connection, even when callers ask for several at once (Promise.all):
    // node-postgres deprecates sending a query while another runs on the client (a warning in every
    // worker's log; pg@9 removes it). Only a connection's first claim or step commit gets here.
    const known = names;
    const mine = (preparing.get(c) ?? Promise.resolve()).then(async () => {
      if (known.has(name)) return;
      await c.query(`PREPARE ${name} AS ${text}`);
      known.add(name);
    });
    preparing.set(
      c,
      mine.catch(() => undefined),
    );
    await mine;
  }
  return (...args) => `EXECUTE ${name}(${args.join(", ")})`;
}

/** A value as an SQL literal for `EXECUTE` arguments (strings quoted; arrays as typed ARRAY literals). */
export function lit(v: unknown, arrayType?: "text[]" | "json[]"): string {
  if (v === null || v === undefined) return "NULL";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new Error(`not a finite number: ${v}`);
    return String(v);
  }
  if (Array.isArray(v)) return v.length ? `ARRAY[${v.map((x) => lit(x)).join(", ")}]::${arrayType ?? "text[]"}` : `'{}'::${arrayType ?? "text[]"}`;
  // As pg's escapeLiteral (E'' when there is a backslash), with regular expressions instead of a loop per character.
  const str = String(v);
  const quoted = str.replace(/'/g, "''");
  return str.includes("\\") ? ` E'${quoted.replace(/\\/g, "\\\\")}'` : `'${quoted}'`;
}
