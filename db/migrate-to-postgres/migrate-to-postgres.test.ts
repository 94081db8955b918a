/**
 * migrate-to-postgres against a real SQLite file and a real PostgreSQL 15: the table list comes from
 * the schema, values survive the type conversion (64-bit integers, booleans, JSON text, quoting),
 * identity sequences continue after the copy, and every refusal or mismatch leaves the target as
 * it was. (The copy of a whole installation, read back through the services and run by the CLI, is
 * tested in server/cli/migrate-to-postgres.test.ts.)
 */
import Database from "better-sqlite3";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { integer, sqliteTable, text, type AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import * as schema from "../schema";
import { openStorage } from "../open";
import { derivePgSchema } from "../pg/derive";
import { migrateToPostgres, MigrationRefused } from ".";
import { buildPlan } from "./plan";
import { startMigrationTestServers, tableCounts, type MigrationTestServers } from "./testing";

let servers: MigrationTestServers;
let dir: string;
beforeAll(async () => {
  servers = await startMigrationTestServers();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-mtp-"));
});
afterAll(async () => {
  await servers?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

let files = 0;
/** A migrated Conveyor SQLite file with an organization and three audit entries, closed (as a stopped installation). */
async function conveyorFile(): Promise<string> {
  const file = path.join(dir, `conveyor-${++files}.db`);
  const st = await openStorage(file);
  await st.store.organizations.insert({ id: "org_1", name: "Acme", createdAt: "2026-01-01T00:00:00.000Z" });
  for (const i of [1, 2, 3]) {
    await st.store.audit.record({
      id: `aud_${i}`,
      organizationId: "org_1",
      workspaceId: null,
      actor: "cli",
      action: "test.entry",
      target: null,
      data: { i },
      at: `2026-01-01T00:00:0${i}.000Z`,
    });
  }
  await st.store.close();
  return file;
}

describe("the copy plan", () => {
  it("covers exactly the tables the migrations create on both engines, parents before children", async () => {
    const plan = buildPlan(schema);
    const file = await conveyorFile();
    const db = new Database(file, { readonly: true });
    const sqliteTables = (
      db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '__drizzle%'").all() as Array<{
        name: string;
      }>
    ).map((r) => r.name);
    db.close();
    expect(plan.map((t) => t.name).sort()).toEqual(sqliteTables.sort());

    const url = await servers.freshDatabase();
    await migrateToPostgres({ from: file, to: url });
    expect(Object.keys(await tableCounts(url)).sort()).toEqual(sqliteTables.sort());

    const seen = new Set<string>();
    for (const t of plan) {
      for (const parent of t.references) expect(seen.has(parent), `${t.name} after ${parent}`).toBe(true);
      seen.add(t.name);
    }
    expect(plan.findIndex((t) => t.name === "runs")).toBeLessThan(plan.findIndex((t) => t.name === "run_steps"));
  });

  it("refuses a schema whose foreign keys form a cycle", () => {
    const node = sqliteTable("node", { id: text().primaryKey(), parentId: text().references((): AnySQLiteColumn => node.id) });
    expect(() => buildPlan({ node })).toThrow(/cycle \(node → node\)/);
  });
});

describe("values and identities", () => {
  // A schema of its own, declared child first: the plan must still copy the parent first.
  const child = sqliteTable("child", {
    id: text().primaryKey(),
    parentSeq: integer()
      .notNull()
      .references((): AnySQLiteColumn => parent.seq),
    flag: integer({ mode: "boolean" }).notNull(),
    doc: text({ mode: "json" }),
  });
  const parent = sqliteTable("parent", {
    seq: integer().primaryKey({ autoIncrement: true }),
    name: text().notNull(),
    big: integer(),
  });
  const testSchema = { child, parent };

  async function ddl(): Promise<{ sqlite: string[]; pg: string[] }> {
    const api = await import("drizzle-kit/api");
    const s0 = await api.generateSQLiteDrizzleJson({});
    const s1 = await api.generateSQLiteDrizzleJson(testSchema, s0.id, "snake_case");
    const p0 = await api.generateDrizzleJson({});
    const p1 = await api.generateDrizzleJson(derivePgSchema(testSchema), p0.id, undefined, "snake_case");
    return { sqlite: await api.generateSQLiteMigration(s0, s1), pg: await api.generateMigration(p0, p1) };
  }

  async function setup(rows: (db: Database.Database) => void): Promise<{ file: string; url: string }> {
    const { sqlite, pg: pgDdl } = await ddl();
    const file = path.join(dir, `values-${++files}.db`);
    const db = new Database(file);
    db.pragma("journal_mode = WAL");
    for (const s of sqlite) db.exec(s);
    rows(db);
    db.close();
    const url = await servers.freshDatabase();
    for (const s of pgDdl) await query(url, s);
    return { file, url };
  }

  const opts = { schema: testSchema, sqliteMigrationsFolder: null, pgMigrationsFolder: null };

  it("keeps 64-bit integers, booleans, JSON text, quoting and unicode exactly, and continues identities after the copy", async () => {
    const tricky = `quote " backslash \\ braces {a,b} NULL 'single' héllo 🚀`;
    const { file, url } = await setup((db) => {
      const p = db.prepare("insert into parent (seq, name, big) values (?, ?, ?)");
      p.run(7, tricky, 2n ** 62n + 1n);
      p.run(41, "", null);
      const c = db.prepare("insert into child (id, parent_seq, flag, doc) values (?, ?, ?, ?)");
      c.run("c1", 7, 1, '{"b": 1,   "a": [2, {"z": null}]}');
      c.run("c2", 41, 0, null);
      c.run("c3", 41, 2, "null");
    });
    const r = await migrateToPostgres({ ...opts, from: file, to: url, batchRows: 2 });
    expect(r.committed).toBe(true);
    expect(r.tables.map((t) => t.table)).toEqual(["parent", "child"]);
    expect(r.identitiesReset).toBe(1);

    const parents = await query<{ seq: string; name: string; big: string | null }>(url, "select seq::text, name, big::text from parent order by parent.seq");
    expect(parents).toEqual([
      { seq: "7", name: tricky, big: (2n ** 62n + 1n).toString() },
      { seq: "41", name: "", big: null },
    ]);
    const children = await query<{ id: string; flag: boolean; doc: string | null }>(url, "select id, flag, doc::text as doc from child order by id");
    // Booleans as the application reads them from SQLite (1 is true, anything else false); JSON verbatim.
    expect(children).toEqual([
      { id: "c1", flag: true, doc: '{"b": 1,   "a": [2, {"z": null}]}' },
      { id: "c2", flag: false, doc: null },
      { id: "c3", flag: false, doc: "null" },
    ]);
    const [next] = await query<{ seq: string }>(url, "insert into parent (name) values ('new') returning seq::text");
    expect(next!.seq).toBe("42");
  });

  it("refuses a value PostgreSQL cannot hold, naming the row, and writes nothing", async () => {
    const { file, url } = await setup((db) => {
      db.prepare("insert into parent (seq, name) values (1, 'fine')").run();
      db.prepare("insert into parent (seq, name) values (2, ?)").run("bad\u0000name");
    });
    await expect(migrateToPostgres({ ...opts, from: file, to: url })).rejects.toThrow(/parent\.name of SQLite row 2 contains a NUL character/);
    expect(await tableCounts(url)).toEqual({ child: 0, parent: 0 });
  });
});

describe("refusals and verification", () => {
  it("refuses while another process has the SQLite file open, before touching the target", async () => {
    const file = await conveyorFile();
    const running = await openStorage(file);
    try {
      const url = await servers.freshDatabase();
      await expect(migrateToPostgres({ from: file, to: url })).rejects.toThrow(MigrationRefused);
      await expect(migrateToPostgres({ from: file, to: url })).rejects.toThrow(/in use by another process\. Stop the SQLite installation first/);
      expect(await tableCounts(url)).toEqual({});
    } finally {
      await running.store.close();
    }
  });

  it("refuses a file that is behind this version's migrations", async () => {
    const file = await conveyorFile();
    const db = new Database(file);
    db.prepare("delete from __drizzle_migrations where rowid = (select max(rowid) from __drizzle_migrations)").run();
    db.close();
    await expect(migrateToPostgres({ from: file, to: await servers.freshDatabase() })).rejects.toThrow(/1 migration\(s\) behind.*npx conveyor migrate/);
  });

  it("refuses rows whose parent is missing (PostgreSQL enforces every foreign key) and a target that is not UTF8", async () => {
    const file = await conveyorFile();
    const db = new Database(file);
    db.pragma("foreign_keys = OFF");
    db.prepare("insert into workspaces values ('ws_orphan', 'org_gone', 'W', '2026-01-01', '2026-01-01')").run();
    db.close();
    const url = await servers.freshDatabase();
    await expect(migrateToPostgres({ from: file, to: url })).rejects.toThrow(
      /1 row\(s\) whose foreign key points at a missing row \(workspaces row \d+ → missing organizations\)/,
    );
    expect(await tableCounts(url)).toEqual({});

    const latin1 = url.replace(/\/(mtp_[^/?]+)/, "/$1_latin1");
    await query(url, `create database "${new URL(latin1).pathname.slice(1)}" template template0 encoding 'LATIN1' lc_collate 'C' lc_ctype 'C'`);
    await expect(migrateToPostgres({ from: await conveyorFile(), to: latin1 })).rejects.toThrow(/encoding is LATIN1; Conveyor needs UTF8/);
  });

  it("reads the work a crashed installation left in its WAL, and says so", async () => {
    const file = await conveyorFile();
    // A process that commits one more audit entry and is killed before it can checkpoint.
    const child = spawn(
      process.execPath,
      [
        "-e",
        `const D = require(${JSON.stringify(path.join(process.cwd(), "node_modules/better-sqlite3"))});
         const db = new D(${JSON.stringify(file)}); db.pragma("journal_mode = WAL"); db.pragma("wal_autocheckpoint = 0");
         db.prepare("insert into audit_log (id, organization_id, actor, action, at) values ('aud_wal', 'org_1', 'cli', 'test.wal', '2026-01-02T00:00:00.000Z')").run();
         console.log("ready"); setInterval(() => {}, 1000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise((resolve) => child.stdout!.once("data", resolve));
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(0);

    const url = await servers.freshDatabase();
    const r = await migrateToPostgres({ from: file, to: url });
    expect(r.walBytesAtOpen).toBeGreaterThan(0);
    expect(r.tables.find((t) => t.table === "audit_log")).toMatchObject({ sqlite: 4, postgres: 4, match: true });
    expect(await query(url, "select action from audit_log where id = 'aud_wal'")).toEqual([{ action: "test.wal" }]);
  });

  it("rolls everything back and reports the table when the target does not end up with the same rows", async () => {
    const file = await conveyorFile();
    const url = await servers.freshDatabase();
    // A dry run applies nothing; a real run onto a target with the schema already in place keeps it.
    const dry = await migrateToPostgres({ from: file, to: url, dryRun: true });
    const pgMigrations = (JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "../migrations-pg/meta/_journal.json"), "utf8")) as { entries: unknown[] })
      .entries.length;
    expect(dry).toMatchObject({ ok: true, committed: false, migrationsPending: pgMigrations });
    expect(await tableCounts(url)).toEqual({});
    const { applyMigrations } = await import("./target");
    const { defaultPgMigrationsFolder } = await import("../pg/backend");
    await applyMigrations(url, defaultPgMigrationsFolder());
    // Something on the target swallows a row of one table and rewrites the keys of another.
    await query(url, "create function swallow() returns trigger language plpgsql as $$ begin return null; end $$");
    await query(url, "create trigger swallow before insert on organizations for each row execute function swallow()");
    await query(url, "create function rekey() returns trigger language plpgsql as $$ begin new.id := new.id || '-x'; return new; end $$");
    await query(url, "create trigger rekey before insert on audit_log for each row execute function rekey()");

    const r = await migrateToPostgres({ from: file, to: url });
    expect(r).toMatchObject({ ok: false, committed: false, migrationsApplied: 0 });
    expect(r.tables.find((t) => t.table === "organizations")).toMatchObject({ sqlite: 1, postgres: 0, match: false });
    // Same count, different keys: only the digest tells.
    expect(r.tables.find((t) => t.table === "audit_log")).toMatchObject({ sqlite: 3, postgres: 3, match: false });
    expect(
      r.tables
        .filter((t) => !t.match)
        .map((t) => t.table)
        .sort(),
    ).toEqual(["audit_log", "organizations"]);
    expect(Object.values(await tableCounts(url)).every((n) => n === 0)).toBe(true);
  });
});
