/**
 * `conveyor migrate-to-postgres`: copies a stopped SQLite installation into an empty PostgreSQL
 * database (scale-out mode), all or nothing.
 *
 * Why one transaction: the target must be empty, so a copy that fails half-way must leave it empty
 * again, or the next attempt is refused and the operator has to clean up by hand. PostgreSQL has no
 * practical limit on a transaction's size (MVCC writes new rows in place; the cost is WAL volume and
 * disk, which a copy needs anyway), so even a history of millions of runs commits as one unit; reads
 * are paged and inserts batched, so the process's memory stays bounded. A failed or interrupted run
 * rolls back to an empty database and can simply be started again: restartable by being atomic.
 *
 * Order of work: lock the SQLite file (refuse when another process has it open) and check it is at
 * this version's schema → inspect the target (refuse when any Conveyor table has a row; nothing is
 * changed then) → apply the PostgreSQL migrations when missing → in one transaction: lock every
 * table, copy each one parents first, reset in-flight leases and add an outbox row per run with
 * jobs, reset identity sequences, compare row counts and key digests → commit only when all match.
 */
import * as sqliteSchema from "../schema";
import { defaultPgMigrationsFolder } from "../pg/backend";
import { jobsTransform, KeyDigest, quoteIdent as q, rowConverter, type PgValue } from "./convert";
import { buildPlan, type TablePlan } from "./plan";
import { MigrationRefused, openSqliteSource, type SqliteSource } from "./source";
import {
  applyMigrations,
  beginCopy,
  checkTargetColumns,
  connectTarget,
  insertBatch,
  insertSql,
  inspectTarget,
  redactUrl,
  refusalForNonEmpty,
  resetIdentities,
  targetDigest,
} from "./target";
import type pg from "pg";

export { MigrationRefused, redactUrl };

export interface MigrateOptions {
  /** SQLite file of the installation (stopped). */
  from: string;
  /** postgres:// URL of an existing, empty database. */
  to: string;
  /** Report what would be copied; write nothing anywhere. */
  dryRun?: boolean;
  /** The schema source (default db/schema). */
  schema?: Record<string, unknown>;
  /** SQLite migrations the file must be at (default db/migrations; null: do not check). */
  sqliteMigrationsFolder?: string | null;
  /** PostgreSQL migrations applied to the target when missing (default db/migrations-pg; null: the tables must exist). */
  pgMigrationsFolder?: string | null;
  /** Most rows per batch (default 1000); pages shrink so one batch stays near `batchBytes`. */
  batchRows?: number;
  batchBytes?: number;
  onProgress?: (p: { table: string; copied: number; total: number }) => void;
  now?: () => number;
}

export interface TableReport {
  table: string;
  sqlite: number;
  /** Rows on PostgreSQL (null in a dry run, or when nothing was written). */
  postgres: number | null;
  /** Counts and key digests equal (null in a dry run). */
  match: boolean | null;
  note?: string;
}

export interface MigrationReport {
  dryRun: boolean;
  from: string;
  /** The target URL without its password. */
  to: string;
  tables: TableReport[];
  /** Rows read from SQLite. */
  rows: number;
  /** Every table matched and the transaction committed (a dry run: a real run would proceed). */
  ok: boolean;
  committed: boolean;
  /** Why a real run would be refused (dry run only). */
  refusal?: string;
  migrationsApplied: number;
  /** Target migrations a real run would apply (dry run). */
  migrationsPending: number;
  leasesReset: number;
  outboxAdded: number;
  identitiesReset: number;
  /** Bytes in the SQLite WAL at open: >0 means the installation did not shut down cleanly. */
  walBytesAtOpen: number;
  /** Values encrypted with the installation's secret key (the same key is needed on PostgreSQL). */
  encrypted: { count: number; sample: string | null };
  durationMs: number;
}

interface Expected {
  digest: KeyDigest;
  note?: string;
}

export async function migrateToPostgres(opts: MigrateOptions): Promise<MigrationReport> {
  const started = Date.now();
  const plan = buildPlan(opts.schema ?? sqliteSchema);
  const pgFolder = opts.pgMigrationsFolder === undefined ? defaultPgMigrationsFolder() : opts.pgMigrationsFolder;
  const source = openSqliteSource(opts.from, plan, { migrationsFolder: opts.sqliteMigrationsFolder });
  let client: pg.Client | undefined;
  try {
    client = await connectTarget(opts.to);
    const state = await inspectTarget(client, plan, pgFolder);
    const hasQueue = plan.some((t) => t.name === "jobs") && plan.some((t) => t.name === "outbox");
    const inFlight = hasQueue ? source.inFlight() : { leased: 0, runsWithJobs: 0, runsWithoutOutbox: 0 };
    const base = {
      from: source.file,
      to: redactUrl(opts.to),
      walBytesAtOpen: source.walBytesAtOpen,
      encrypted: source.encrypted(plan),
      migrationsPending: state.pendingMigrations,
    };
    if (opts.dryRun) {
      const tables = plan.map((t): TableReport => ({ table: t.name, sqlite: source.count(t), postgres: null, match: null }));
      const refusal = state.nonEmpty.length ? refusalForNonEmpty(state, opts.to).message : undefined;
      return {
        ...base,
        dryRun: true,
        tables,
        rows: sum(tables.map((t) => t.sqlite)),
        ok: !refusal,
        committed: false,
        refusal,
        migrationsApplied: 0,
        leasesReset: inFlight.leased,
        outboxAdded: inFlight.runsWithoutOutbox,
        identitiesReset: 0,
        durationMs: Date.now() - started,
      };
    }
    if (state.nonEmpty.length) throw refusalForNonEmpty(state, opts.to);
    if (state.pendingMigrations > 0 && pgFolder !== null) await applyMigrations(opts.to, pgFolder);
    await checkTargetColumns(client, plan);

    await beginCopy(client, plan);
    let committed = false;
    try {
      const locked = await inspectTarget(client, plan, null);
      if (locked.nonEmpty.length) throw refusalForNonEmpty(locked, opts.to);
      const copy = await copyAll(client, source, plan, opts, hasQueue);
      let identitiesReset = 0;
      for (const t of plan) identitiesReset += await resetIdentities(client, t);
      const tables: TableReport[] = [];
      for (const t of plan) {
        const want = copy.expected.get(t.name)!;
        const got = await targetDigest(client, t);
        tables.push({
          table: t.name,
          sqlite: copy.sqliteCounts.get(t.name)!,
          postgres: Number(got.count),
          match: got.count === want.digest.count && got.sum === want.digest.sum,
          note: want.note,
        });
      }
      const ok = tables.every((t) => t.match);
      if (ok) {
        await client.query("commit");
        committed = true;
        // Counted again outside the transaction: what is really there now.
        for (const r of tables) r.postgres = Number((await client.query<{ n: string }>(`select count(*)::text as n from ${q(r.table)}`)).rows[0]!.n);
        await client.query(`analyze ${plan.map((t) => q(t.name)).join(", ")}`);
      } else {
        await client.query("rollback");
      }
      return {
        ...base,
        dryRun: false,
        tables,
        rows: sum(tables.map((t) => t.sqlite)),
        ok: ok && committed,
        committed,
        migrationsApplied: state.pendingMigrations,
        migrationsPending: 0,
        leasesReset: copy.leasesReset,
        outboxAdded: copy.outboxAdded,
        identitiesReset,
        durationMs: Date.now() - started,
      };
    } catch (e) {
      if (!committed) await client.query("rollback").catch(() => undefined);
      throw e;
    }
  } finally {
    source.close();
    await client?.end().catch(() => undefined);
  }
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

async function copyAll(client: pg.Client, source: SqliteSource, plan: TablePlan[], opts: MigrateOptions, hasQueue: boolean) {
  const expected = new Map<string, Expected>();
  const sqliteCounts = new Map<string, number>();
  let leasesReset = 0;
  /** Runs with step jobs → when their first job is due (for their outbox rows). */
  const runsWithJobs = new Map<string, bigint>();
  const outboxRuns = new Set<string>();
  const outbox = plan.find((t) => t.name === "outbox");
  const ordered = hasQueue ? [...plan.filter((t) => t !== outbox), outbox!] : plan;

  for (const t of ordered) {
    const total = source.count(t);
    sqliteCounts.set(t.name, total);
    const digest = new KeyDigest(t);
    const isJobs = hasQueue && t.name === "jobs";
    const resetLease = isJobs ? jobsTransform(t) : null;
    const col = (name: string) => t.columns.findIndex((c) => c.name === name);
    const [runIdAt, availableAt] = [col("run_id"), col("available_at")];
    const copied = await copyTable(client, source, t, opts, total, (row) => {
      if (resetLease?.(row)) leasesReset++;
      if (isJobs && row[runIdAt]) {
        const runId = row[runIdAt] as string;
        const at = BigInt(row[availableAt] as string);
        const prev = runsWithJobs.get(runId);
        if (prev === undefined || at < prev) runsWithJobs.set(runId, at);
      }
      if (t === outbox) outboxRuns.add(row[runIdAt] as string);
      digest.add(row);
    });
    if (copied !== total) throw new Error(`${t.name}: read ${copied} rows but SQLite counts ${total} (did the file change during the copy?)`);
    expected.set(t.name, { digest, note: isJobs && leasesReset ? `${leasesReset} lease(s) reset to queued` : undefined });
  }

  let outboxAdded = 0;
  if (outbox) {
    const createdAt = String(opts.now?.() ?? Date.now());
    const rows: PgValue[][] = [];
    for (const [runId, at] of runsWithJobs) {
      if (outboxRuns.has(runId)) continue;
      const row = outbox.columns.map((c) =>
        c.name === "run_id" ? runId : c.name === "available_at" ? at.toString() : c.name === "created_at" ? createdAt : null,
      );
      rows.push(row);
      expected.get("outbox")!.digest.add(row);
    }
    const sql = insertSql(outbox);
    for (let i = 0; i < rows.length; i += 1000) await insertBatch(client, outbox, sql, rows.slice(i, i + 1000));
    outboxAdded = rows.length;
    if (outboxAdded) expected.get("outbox")!.note = `+${outboxAdded} for runs with queued work`;
  }
  return { expected, sqliteCounts, leasesReset, outboxAdded };
}

/** Copies one table in pages; `each` sees (and may change) every converted row before it is sent. */
async function copyTable(
  client: pg.Client,
  source: SqliteSource,
  t: TablePlan,
  opts: MigrateOptions,
  total: number,
  each: (row: PgValue[]) => void,
): Promise<number> {
  const maxRows = opts.batchRows ?? 1000;
  const maxBytes = opts.batchBytes ?? 8 * 1024 * 1024;
  const convert = rowConverter(t);
  const sql = insertSql(t);
  let pageRows = Math.min(16, maxRows); // small first page: rows may be large (step outputs up to 1 MB)
  let copied = 0;
  let inFlight: Promise<void> | undefined;
  for (const page of source.pages(t, () => pageRows)) {
    let bytes = 0;
    const rows = page.rows.map((raw, i) => {
      const row = convert(raw, page.rowids[i]!);
      each(row);
      for (const v of row) bytes += typeof v === "string" ? v.length : 8;
      return row;
    });
    // One insert in flight while the next page is read (better-sqlite3 reads synchronously).
    await inFlight;
    inFlight = insertBatch(client, t, sql, rows);
    inFlight.catch(() => undefined);
    copied += rows.length;
    opts.onProgress?.({ table: t.name, copied, total });
    // Aim at maxBytes per batch: big rows (step logs and outputs) make smaller pages.
    const perRow = bytes / rows.length || 1;
    pageRows = Math.max(1, Math.min(maxRows, Math.floor(maxBytes / perRow)));
  }
  await inFlight;
  return copied;
}
