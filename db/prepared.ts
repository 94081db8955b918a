/** Prepared statements cached per connection: preparing SQL costs more than running it on hot paths. */
import type { Db } from "./client";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Statement = import("better-sqlite3").Statement<any[], unknown>;
const caches = new WeakMap<Db, Map<string, Statement>>();

export function prepared(db: Db, sql: string): Statement {
  let m = caches.get(db);
  if (!m) {
    m = new Map();
    caches.set(db, m);
  }
  let s = m.get(sql);
  if (!s) {
    s = db.$client.prepare(sql) as Statement;
    m.set(sql, s);
  }
  return s;
}
