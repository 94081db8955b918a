/**
 * What `conveyor migrate-to-postgres` copies, read from the schema (never a hand-kept list):
 * every table of `db/schema/*`, in foreign-key order (parents first), with each column's SQL name,
 * its PostgreSQL kind (from the tables derived in db/pg/derive.ts, so the conversion follows the
 * mapping the target really has), the primary key and the identity (autoincrement) columns.
 */
import { is, Table } from "drizzle-orm";
import { CasingCache } from "drizzle-orm/casing";
import { getTableConfig as pgTableConfig, type PgTable } from "drizzle-orm/pg-core";
import { getTableConfig, type SQLiteColumn, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { derivePgSchema } from "../pg/derive";

/** How a SQLite value becomes a PostgreSQL one (see db/pg/derive.ts for the mapping). */
export type ColumnKind = "text" | "json" | "boolean" | "bigint";

export interface ColumnPlan {
  /** Property name in the schema (`workspaceId`). */
  key: string;
  /** SQL name on both sides (`workspace_id`). */
  name: string;
  kind: ColumnKind;
  /** Generated identity on PostgreSQL (SQLite autoincrement): its sequence is reset after the copy. */
  identity: boolean;
  notNull: boolean;
}

export interface TablePlan {
  /** Export name in the schema module (`runSteps`). */
  key: string;
  /** SQL table name (`run_steps`). */
  name: string;
  columns: ColumnPlan[];
  /**
   * SQL names of the columns that identify a row (hashed to compare both sides): the primary key,
   * else the first unique index over non-null columns, else every column.
   */
  keyColumns: string[];
  /** SQL names of the tables this one references. */
  references: string[];
}

const PG_KINDS: Record<string, ColumnKind> = {
  PgText: "text",
  PgJson: "json",
  PgBoolean: "boolean",
  PgBigInt53: "bigint",
};

const casing = new CasingCache("snake_case");

/** The copy plan of every table in `schema` (an `import * as schema` object), parents first. */
export function buildPlan(schema: Record<string, unknown>): TablePlan[] {
  const entries = Object.entries(schema).filter(([, v]) => is(v, Table)) as Array<[string, SQLiteTable]>;
  const pg = derivePgSchema(Object.fromEntries(entries));
  const tables = entries.map(([key, table]) => planTable(key, table, pg[key]!));
  return dependencyOrder(tables);
}

function planTable(key: string, table: SQLiteTable, pgTable: PgTable): TablePlan {
  const cfg = getTableConfig(table);
  const pgCols = new Map(pgTableConfig(pgTable).columns.map((c) => [casing.getColumnCasing(c), c]));
  const columns = cfg.columns.map((col: SQLiteColumn): ColumnPlan => {
    const name = casing.getColumnCasing(col);
    const pgCol = pgCols.get(name);
    const kind = pgCol && PG_KINDS[pgCol.columnType];
    if (!kind) {
      throw new Error(
        `migrate-to-postgres: no conversion for ${cfg.name}.${name} (${pgCol?.columnType ?? "missing"} on PostgreSQL); add one in db/migrate-to-postgres/convert.ts`,
      );
    }
    return { key: col.name, name, kind, identity: !!(col as unknown as { autoIncrement?: boolean }).autoIncrement, notNull: col.notNull };
  });
  const single = cfg.columns.filter((c) => c.primary).map((c) => casing.getColumnCasing(c));
  const composite = cfg.primaryKeys[0]?.columns.map((c) => casing.getColumnCasing(c as SQLiteColumn)) ?? [];
  const notNull = new Set(columns.filter((c) => c.notNull).map((c) => c.name));
  const unique = cfg.indexes
    .filter((i) => i.config.unique && !i.config.where)
    .map((i) => (i.config.columns as SQLiteColumn[]).map((c) => casing.getColumnCasing(c)))
    .find((cols) => cols.every((c) => notNull.has(c)));
  const keyColumns = single.length ? single : composite.length ? composite : (unique ?? columns.map((c) => c.name));
  const references = [...new Set(cfg.foreignKeys.map((fk) => getTableConfig(fk.reference().foreignTable).name))];
  return { key, name: cfg.name, columns, keyColumns, references };
}

/** Parents before children, otherwise in schema order (each table right after what it needs); a cycle is an error. */
export function dependencyOrder(tables: TablePlan[]): TablePlan[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const out: TablePlan[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (t: TablePlan, path: string[]) => {
    if (state.get(t.name) === "done") return;
    if (state.get(t.name) === "visiting") {
      throw new Error(
        `migrate-to-postgres: foreign keys form a cycle (${[...path.slice(path.indexOf(t.name)), t.name].join(" → ")}); rows could not be copied parents first`,
      );
    }
    state.set(t.name, "visiting");
    for (const r of t.references) {
      const parent = byName.get(r);
      if (parent) visit(parent, [...path, t.name]);
    }
    state.set(t.name, "done");
    out.push(t);
  };
  for (const t of tables) visit(t, []);
  return out;
}
