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
