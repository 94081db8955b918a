/**
 * The PostgreSQL side of `migrate-to-postgres`: inspection (encoding, schema, emptiness), the
 * migrations, and the statements the copy runs inside its transaction (lock, batched inserts with
 * `unnest`, identity sequences, the key digest).
 *
 * Its own `pg.Client` with the driver's default type parsers (counts and digests come back as text,
 * never rounded), no statement timeout, and an application name visible in pg_stat_activity.
 */
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { openPgBackend } from "../pg/backend";
import { keyDigestSql, quoteIdent as q, type PgValue } from "./convert";
import type { ColumnKind, TablePlan } from "./plan";
import { MigrationRefused } from "./source";

export async function connectTarget(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: "conveyor migrate-to-postgres", connectionTimeoutMillis: 10_000, keepAlive: true });
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (e) {
    throw new MigrationRefused(`Cannot connect to the PostgreSQL database ${redactUrl(url)}: ${(e as Error).message}`);
  }
  return client;
}

/** The URL with its password replaced by `***` (for messages and logs). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparsable URL)";
  }
}

export interface TargetState {
  /** Conveyor tables present on the target. */
  existing: string[];
  /** Tables with at least one row, with their row count (capped at 1001). */
  nonEmpty: Array<{ table: string; rows: number }>;
  /** PostgreSQL migrations of this version not yet applied on the target. */
  pendingMigrations: number;
}

function journalEntries(folder: string): number {
  return (JSON.parse(fs.readFileSync(path.join(folder, "meta", "_journal.json"), "utf8")) as { entries: unknown[] }).entries.length;
}

export async function inspectTarget(client: pg.Client, plan: TablePlan[], migrationsFolder: string | null): Promise<TargetState> {
  const encoding = (await client.query<{ server_encoding: string }>("show server_encoding")).rows[0]!.server_encoding;
  if (encoding.toUpperCase() !== "UTF8") {
    throw new MigrationRefused(`The target database's encoding is ${encoding}; Conveyor needs UTF8 (create the database with ENCODING 'UTF8').`);
  }
  const names = plan.map((t) => t.name);
  const existing = (
    await client.query<{ name: string }>(
      "select table_name as name from information_schema.tables where table_schema = current_schema() and table_name = any($1::text[])",
      [names],
    )
  ).rows.map((r) => r.name);
  const nonEmpty: TargetState["nonEmpty"] = [];
  for (const name of names.filter((n) => existing.includes(n))) {
    const rows = Number((await client.query<{ n: string }>(`select count(*)::text as n from (select 1 from ${q(name)} limit 1001) x`)).rows[0]!.n);
    if (rows > 0) nonEmpty.push({ table: name, rows });
  }
  let pendingMigrations = 0;
  if (migrationsFolder !== null) {
    const hasJournal = (await client.query<{ t: string | null }>("select to_regclass('drizzle.__drizzle_migrations')::text as t")).rows[0]!.t !== null;
    const applied = hasJournal ? Number((await client.query<{ n: string }>("select count(*)::text as n from drizzle.__drizzle_migrations")).rows[0]!.n) : 0;
    pendingMigrations = Math.max(0, journalEntries(migrationsFolder) - applied);
  }
  return { existing, nonEmpty, pendingMigrations };
}

export function refusalForNonEmpty(state: TargetState, url: string): MigrationRefused {
  const list = state.nonEmpty.map((t) => `${t.table}: ${t.rows > 1000 ? "1000+" : t.rows} row(s)`).join(", ");
  return new MigrationRefused(
    `The target database ${redactUrl(url)} already holds Conveyor data (${list}). migrate-to-postgres only copies into an empty database, so nothing was changed. Use a new, empty database (or drop and re-create this one if its data is not needed).`,
  );
}

/** Applies the PostgreSQL migrations (under the same advisory lock the servers use at start). */
export async function applyMigrations(url: string, migrationsFolder: string): Promise<void> {
  const b = await openPgBackend(url, { max: 1, migrate: true, migrationsFolder, applicationName: "conveyor migrate-to-postgres" });
  await b.close();
}

const PG_TYPES: Record<ColumnKind, string> = { text: "text", json: "json", boolean: "boolean", bigint: "bigint" };

/** Every table and column of the plan exists on the target with the type the copy writes. */
export async function checkTargetColumns(client: pg.Client, plan: TablePlan[]): Promise<void> {
  const rows = (
    await client.query<{ t: string; c: string; type: string }>(
      "select table_name as t, column_name as c, data_type as type from information_schema.columns where table_schema = current_schema() and table_name = any($1::text[])",
      [plan.map((t) => t.name)],
    )
  ).rows;
  const have = new Map(rows.map((r) => [`${r.t}.${r.c}`, r.type]));
  const problems: string[] = [];
  for (const t of plan) {
    for (const c of t.columns) {
      const type = have.get(`${t.name}.${c.name}`);
      if (!type) problems.push(`${t.name}.${c.name} is missing`);
      else if (type !== PG_TYPES[c.kind]) problems.push(`${t.name}.${c.name} is ${type}, expected ${PG_TYPES[c.kind]}`);
    }
  }
  if (problems.length) {
    throw new MigrationRefused(
      `The target database's tables do not match this version of Conveyor: ${problems.slice(0, 10).join("; ")}${problems.length > 10 ? "; …" : ""}.`,
    );
  }
}

/** Opens the copy's transaction: no statement timeout, and every Conveyor table locked against writers. */
export async function beginCopy(client: pg.Client, plan: TablePlan[]): Promise<void> {
  await client.query("begin");
  await client.query("set local statement_timeout = 0");
  await client.query("set local idle_in_transaction_session_timeout = 0");
  await client.query("set local lock_timeout = '10s'");
  try {
    await client.query(`lock table ${plan.map((t) => q(t.name)).join(", ")} in exclusive mode`);
  } catch (e) {
    await client.query("rollback").catch(() => undefined);
    if ((e as { code?: string }).code === "55P03") {
      throw new MigrationRefused(
        "The target database's Conveyor tables are in use (a lock could not be taken in 10 s): stop every Conveyor process using it and run this again.",
      );
    }
    throw e;
  }
}

/** An insert of one batch: one array parameter per column, so the statement is the same for every batch. */
export function insertSql(table: TablePlan): string {
  const cols = table.columns.map((c) => q(c.name)).join(", ");
  const arrays = table.columns.map((c, i) => `$${i + 1}::${c.kind === "json" ? "text" : PG_TYPES[c.kind]}[]`).join(", ");
  const selects = table.columns.map((c, i) => (c.kind === "json" ? `c${i}::json` : `c${i}`)).join(", ");
  const aliases = table.columns.map((_, i) => `c${i}`).join(", ");
  return `insert into ${q(table.name)} (${cols}) select ${selects} from unnest(${arrays}) as u(${aliases})`;
}

export async function insertBatch(client: pg.Client, table: TablePlan, sql: string, rows: PgValue[][]): Promise<void> {
  const columns = table.columns.map((_, i) => rows.map((r) => r[i]!));
  try {
    await client.query({ text: sql, values: columns });
  } catch (e) {
    const err = e as Error & { detail?: string; constraint?: string };
    throw new Error(`copying ${table.name} failed: ${err.message}${err.detail ? ` (${err.detail})` : ""}`);
  }
}

/** Identity columns continue after the copied values (`setval` to the largest copied value). */
export async function resetIdentities(client: pg.Client, table: TablePlan): Promise<number> {
  let n = 0;
  for (const c of table.columns.filter((x) => x.identity)) {
    await client.query(`select setval(pg_get_serial_sequence($1, $2), coalesce((select max(${q(c.name)}) from ${q(table.name)}), 0) + 1, false)`, [
      q(table.name),
      c.name,
    ]);
    n++;
  }
  return n;
}

export async function targetDigest(client: pg.Client, table: TablePlan): Promise<{ count: bigint; sum: bigint }> {
  const r = (await client.query<{ n: string; digest: string }>(keyDigestSql(table))).rows[0]!;
  return { count: BigInt(r.n), sum: BigInt(r.digest) };
}
