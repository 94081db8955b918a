import { describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb, closeDb, appliedMigrationCount, pendingMigrationCount } from "./client";

function tempFile() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-db-"));
  return { dir, file: path.join(dir, "nested", "conveyor.db") };
}

describe("database migrations", () => {
  it("creates and migrates an empty file, with WAL and foreign keys on", () => {
    const { dir, file } = tempFile();
    const db = openDb(file);
    expect(fs.existsSync(file)).toBe(true);
    expect(pendingMigrationCount(db)).toBe(0);
    expect(appliedMigrationCount(db)).toBeGreaterThan(0);
    expect(db.$client.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.$client.pragma("foreign_keys", { simple: true })).toBe(1);
    const tables = db.$client
      .prepare("select name from sqlite_master where type='table'")
      .all()
      .map((r) => (r as { name: string }).name);
    for (const t of [
      "users",
      "workspaces",
      "automations",
      "automation_versions",
      "runs",
      "run_steps",
      "tasks",
      "task_activity",
      "intakes",
      "connections",
      "api_keys",
      "usage_counters",
      "events",
      "jobs",
    ]) {
      expect(tables).toContain(t);
    }
    closeDb(db);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("re-opening an already-migrated file keeps its data and applies nothing twice", () => {
    const { dir, file } = tempFile();
    const first = openDb(file);
    first.$client.prepare("insert into organizations (id, name, created_at) values ('org_1', 'Acme', '2026-01-01T00:00:00Z')").run();
    const applied = appliedMigrationCount(first);
    closeDb(first);
    const second = openDb(file);
    expect(appliedMigrationCount(second)).toBe(applied);
    expect(second.$client.prepare("select name from organizations where id = 'org_1'").get()).toEqual({ name: "Acme" });
    closeDb(second);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("refuses rows that break foreign keys", () => {
    const { dir, file } = tempFile();
    const db = openDb(file);
    expect(() =>
      db.$client.prepare("insert into workspaces (id, organization_id, name, created_at, updated_at) values ('ws_1', 'org_missing', 'x', 'now', 'now')").run(),
    ).toThrow(/FOREIGN KEY/);
    closeDb(db);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
