/**
 * The SQLite side of `migrate-to-postgres`: the installation's file, opened so that nobody else can
 * use it while it is read.
 *
 * - `locking_mode = EXCLUSIVE` makes the first read take SQLite's exclusive lock and keep it until
 *   close. While any other connection has the file open (a running web process or worker, even an
 *   idle one), taking it fails at once: the installation is still running, so the copy is refused.
 *   Once taken, no process can start writing mid-copy.
 * - One read transaction spans the whole copy: every table is read from the same snapshot.
 * - A WAL file with content at open means the last process did not shut down cleanly; its committed
 *   transactions are read (SQLite recovers them) and the caller warns.
 * - Rows are read in pages by rowid (keyset pagination), so memory stays bounded whatever the size.
 */
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { quoteIdent as q } from "./convert";
import type { TablePlan } from "./plan";

export class MigrationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MigrationRefused";
  }
}

export interface SqliteSource {
  readonly file: string;
  /** Size of the `-wal` file found at open (0: the last process shut down cleanly). */
  readonly walBytesAtOpen: number;
  count(table: TablePlan): number;
  /** Raw rows (columns in plan order, integers as BigInt) in rowid order, `pageRows()` at a time. */
  pages(table: TablePlan, pageRows: () => number): Generator<{ rows: unknown[][]; rowids: bigint[] }>;
  /** Values of the `*_enc` columns (encrypted with the installation's secret key): how many, and one of them. */
  encrypted(plan: TablePlan[]): { count: number; sample: string | null };
  /** Step jobs whose lease will be reset, and runs with jobs that get an outbox row. */
  inFlight(): { leased: number; runsWithJobs: number; runsWithoutOutbox: number };
  close(): void;
}

function walSize(file: string): number {
  try {
    return fs.statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}

export function openSqliteSource(file: string, plan: TablePlan[], opts: { migrationsFolder?: string | null } = {}): SqliteSource {
  const abs = path.resolve(file);
  if (!fs.existsSync(abs)) throw new MigrationRefused(`The SQLite file ${abs} does not exist (give the installation's database with --from).`);
  const walBytesAtOpen = walSize(abs);
  const db = new Database(abs, { fileMustExist: true });
  try {
    db.pragma("busy_timeout = 0");
    db.pragma("locking_mode = EXCLUSIVE");
    try {
      db.exec("BEGIN");
      db.prepare("select count(*) from sqlite_master").get();
    } catch (e) {
      if ((e as { code?: string }).code === "SQLITE_BUSY" || (e as { code?: string }).code === "SQLITE_LOCKED") {
        throw new MigrationRefused(
          `The SQLite file ${abs} is in use by another process. Stop the SQLite installation first (the web process and every \`conveyor worker\`), then run this again.`,
        );
      }
      throw e;
    }
    checkMigrations(db, abs, opts.migrationsFolder === undefined ? path.join(process.cwd(), "db", "migrations") : opts.migrationsFolder);
    checkColumns(db, abs, plan);
    checkForeignKeys(db, abs);
  } catch (e) {
    db.close();
    throw e;
  }

  return {
    file: abs,
    walBytesAtOpen,
    count: (t) => Number((db.prepare(`select count(*) as n from ${q(t.name)}`).get() as { n: number }).n),
    *pages(t, pageRows) {
      const cols = t.columns.map((c) => q(c.name)).join(", ");
      const st = db
        .prepare(`select rowid, ${cols} from ${q(t.name)} where rowid > ? order by rowid limit ?`)
        .raw(true)
        .safeIntegers(true);
      let after = -(2n ** 63n);
      for (;;) {
        const limit = pageRows();
        const raw = st.all(after, limit) as unknown[][];
        if (!raw.length) return;
        const rowids = raw.map((r) => r[0] as bigint);
        yield { rows: raw.map((r) => r.slice(1)), rowids };
        after = rowids[rowids.length - 1]!;
        if (raw.length < limit) return;
      }
    },
    encrypted(tables) {
      let count = 0;
      let sample: string | null = null;
      for (const t of tables) {
        for (const c of t.columns.filter((x) => x.kind === "text" && x.name.endsWith("_enc"))) {
          count += (db.prepare(`select count(*) as n from ${q(t.name)} where ${q(c.name)} is not null`).get() as { n: number }).n;
          sample ??=
            (db.prepare(`select ${q(c.name)} as v from ${q(t.name)} where ${q(c.name)} is not null limit 1`).get() as { v: string } | undefined)?.v ?? null;
        }
      }
      return { count, sample };
    },
    inFlight() {
      const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
      return {
        leased: n("select count(*) as n from jobs where status = 'leased'"),
        runsWithJobs: n("select count(distinct run_id) as n from jobs where run_id is not null"),
        runsWithoutOutbox: n("select count(distinct run_id) as n from jobs where run_id is not null and run_id not in (select run_id from outbox)"),
      };
    },
    close() {
      try {
        if (db.inTransaction) db.exec("COMMIT");
      } finally {
        db.close();
      }
    },
  };
}

/** The file must be at this version's schema: the copy maps this version's columns. */
function checkMigrations(db: Database.Database, file: string, folder: string | null): void {
  if (folder === null) return;
  const expected = (JSON.parse(fs.readFileSync(path.join(folder, "meta", "_journal.json"), "utf8")) as { entries: unknown[] }).entries.length;
  const hasJournal =
    (db.prepare("select count(*) as n from sqlite_master where type = 'table' and name = '__drizzle_migrations'").get() as { n: number }).n > 0;
  const applied = hasJournal ? (db.prepare("select count(*) as n from __drizzle_migrations").get() as { n: number }).n : 0;
  if (!hasJournal) throw new MigrationRefused(`${file} is not a Conveyor database (it has no migrations journal).`);
  if (applied < expected) {
    throw new MigrationRefused(
      `${file} is ${expected - applied} migration(s) behind this version of Conveyor. Bring it up to date first: DATABASE_URL=${file} npx conveyor migrate`,
    );
  }
  if (applied > expected) {
    throw new MigrationRefused(
      `${file} was migrated by a newer version of Conveyor (${applied} migrations, this one knows ${expected}); run migrate-to-postgres from that version.`,
    );
  }
}

function checkColumns(db: Database.Database, file: string, plan: TablePlan[]): void {
  const problems: string[] = [];
  for (const t of plan) {
    const have = new Set((db.prepare(`select name from pragma_table_info(?)`).all(t.name) as Array<{ name: string }>).map((r) => r.name));
    if (!have.size) problems.push(`table ${t.name} is missing`);
    else for (const c of t.columns) if (!have.has(c.name)) problems.push(`column ${t.name}.${c.name} is missing`);
  }
  if (problems.length) throw new MigrationRefused(`${file} does not have the tables this version expects: ${problems.slice(0, 10).join("; ")}.`);
}

/** Rows pointing at missing parents would fail on PostgreSQL (which enforces every foreign key): list them first. */
function checkForeignKeys(db: Database.Database, file: string): void {
  const bad = db.prepare("pragma foreign_key_check").all() as Array<{ table: string; rowid: number; parent: string }>;
  if (!bad.length) return;
  const shown = bad
    .slice(0, 10)
    .map((b) => `${b.table} row ${b.rowid} → missing ${b.parent}`)
    .join("; ");
  throw new MigrationRefused(
    `${file} has ${bad.length} row(s) whose foreign key points at a missing row (${shown}${bad.length > 10 ? "; …" : ""}). PostgreSQL would refuse them: delete or repair those rows in SQLite first.`,
  );
}
