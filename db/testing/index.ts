/**
 * Test storage: a real database per test (or per file), migrated with the real migrations.
 * - SQLite (default): a fresh file in its own temp dir.
 * - PostgreSQL, when `CONVEYOR_TEST_PG_URL` is set (the vitest global setup starts a server for
 *   `CONVEYOR_TEST_BACKEND=postgres`): a fresh database cloned from a migrated template.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { openDb, closeDb, type Db } from "../client";
import { openStorage, type OpenedStorage } from "../open";
import { epochOf } from "../sqlite/backend";

export interface TestDb {
  db: Db;
  file: string;
  dir: string;
  close(): void;
}

/** A fresh migrated SQLite file in its own temp dir (removed by `close`). */
export function createTestDb(): TestDb {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-test-"));
  const file = path.join(dir, "test.db");
  const db = openDb(file);
  return {
    db,
    file,
    dir,
    close() {
      closeDb(db);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Raw SQL for test assertions, on either backend (`?` placeholders; rows as plain objects). */
export type TestSql = <T = Record<string, unknown>>(query: string, ...params: unknown[]) => Promise<T[]>;

export function testSql(opened: OpenedStorage): TestSql {
  if (opened.sqlite) {
    const c = opened.sqlite.$client;
    const epoch = epochOf(opened.sqlite);
    return async (query, ...params) => {
      const st = c.prepare(query);
      if (st.reader) return st.all(...params) as never;
      epoch.n++; // a test's UPDATE must reach the engine's caches like a store write
      st.run(...params);
      return [] as never;
    };
  }
  const pool = (opened.backend as import("../pg/backend").PgBackend).pool;
  return async (query, ...params) => {
    let i = 0;
    const text = query.replace(/\?/g, () => `$${++i}`);
    return (await pool.query(text, params)).rows as never;
  };
}

export interface TestStorage extends OpenedStorage {
  /** Raw SQL for assertions (tests only). */
  sql: TestSql;
  /** SQLite file path or PostgreSQL database URL (for child processes). */
  url: string;
  dir: string;
  close(): Promise<void>;
}

export const TEMPLATE_DB = "conveyor_template";

export function testBackend(): "sqlite" | "postgres" {
  return process.env.CONVEYOR_TEST_PG_URL ? "postgres" : "sqlite";
}

let counter = 0;

/** A fresh, migrated database of the backend under test. */
export async function createTestStorage(): Promise<TestStorage> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-test-"));
  const adminUrl = process.env.CONVEYOR_TEST_PG_URL;
  if (!adminUrl) {
    const file = path.join(dir, "test.db");
    const opened = await openStorage(file);
    return {
      ...opened,
      sql: testSql(opened),
      url: file,
      dir,
      async close() {
        await opened.store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `t_${process.pid}_${Date.now().toString(36)}_${++counter}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database "${name}" template ${TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
  const url = adminUrl.replace(/\/[^/?]*(\?|$)/, `/${name}$1`);
  const opened = await openStorage(url, { migrate: false, pg: { max: 5 } });
  return {
    ...opened,
    sql: testSql(opened),
    url,
    dir,
    async close() {
      await opened.store.close();
      fs.rmSync(dir, { recursive: true, force: true });
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      try {
        await a.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await a.end();
      }
    },
  };
}

/** A JSON column read with raw SQL: text on SQLite, already parsed on PostgreSQL. */
export function jsonCol<T = unknown>(v: unknown): T {
  return (typeof v === "string" ? JSON.parse(v) : v) as T;
}

/** Names of the application's tables (not the migrations journal), on either backend. */
export async function tableNames(sql: TestSql, dialect: "sqlite" | "postgres"): Promise<string[]> {
  const rows =
    dialect === "postgres"
      ? await sql<{ name: string }>("select tablename as name from pg_tables where schemaname = 'public' order by tablename")
      : await sql<{ name: string }>(
          "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '__drizzle%' order by name",
        );
  return rows.map((r) => r.name);
}
