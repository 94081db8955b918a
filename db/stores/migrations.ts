/**
 * Which schema migrations the database has (the health endpoint): drizzle records applied ones in
 * `__drizzle_migrations` (SQLite: in the main schema; PostgreSQL: in the `drizzle` schema), and
 * the migrations folder's journal lists the ones this build ships. The only dialect branch here:
 * looking up drizzle's own bookkeeping table.
 */
import fs from "node:fs";
import path from "node:path";
import { sql, type SQL } from "drizzle-orm";
import { defaultMigrationsFolder } from "../client";
import { defaultPgMigrationsFolder } from "../pg/backend";
import type { Ctx } from "../store-kit";

async function rows<T>(c: Ctx, q: SQL): Promise<T[]> {
  // drizzle's raw-query call differs per driver: `.all()` on SQLite, `.execute()` (QueryResult) on node-postgres.
  const h = c.h as unknown as { all?: (q: SQL) => Promise<T[]>; execute?: (q: SQL) => Promise<{ rows: T[] }> };
  return c.dialect === "sqlite" ? h.all!(q) : (await h.execute!(q)).rows;
}

async function appliedCount(c: Ctx): Promise<number> {
  if (c.dialect === "sqlite") {
    const [t] = await rows<{ n: number }>(c, sql`select count(*) as n from sqlite_master where type = 'table' and name = '__drizzle_migrations'`);
    if (!t?.n) return 0;
    return Number((await rows<{ n: number }>(c, sql`select count(*) as n from __drizzle_migrations`))[0]?.n ?? 0);
  }
  const [t] = await rows<{ present: boolean }>(c, sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`);
  if (!t?.present) return 0;
  return Number((await rows<{ n: number }>(c, sql`select count(*) as n from drizzle.__drizzle_migrations`))[0]?.n ?? 0);
}

export const migrationsStore = {
  /** Applied migrations and those this build ships but the database has not applied yet. */
  async status(c: Ctx, migrationsFolder?: string): Promise<{ applied: number; pending: number }> {
    const folder = migrationsFolder ?? (c.dialect === "sqlite" ? defaultMigrationsFolder() : defaultPgMigrationsFolder());
    const journal = JSON.parse(await fs.promises.readFile(path.join(folder, "meta", "_journal.json"), "utf8")) as { entries: unknown[] };
    const applied = await appliedCount(c);
    return { applied, pending: Math.max(0, journal.entries.length - applied) };
  },
};
