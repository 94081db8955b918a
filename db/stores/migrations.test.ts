/** Contract of the migrations status (health endpoint) on the backend under test. */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps, type TestDeps } from "@/server/testing";

let deps: TestDeps;
beforeEach(async () => {
  deps = await createTestDeps();
});
afterEach(async () => deps.close());

const shipped = (folder: string) => (JSON.parse(fs.readFileSync(path.join(folder, "meta", "_journal.json"), "utf8")) as { entries: unknown[] }).entries;
const folderOf = (dialect: string) => path.join(process.cwd(), "db", dialect === "sqlite" ? "migrations" : "migrations-pg");

describe("migrations store", () => {
  it("counts every shipped migration as applied on a migrated database", async () => {
    const n = shipped(folderOf(deps.store.dialect)).length;
    expect(n).toBeGreaterThan(0);
    expect(await deps.store.migrations.status()).toEqual({ applied: n, pending: 0 });
  });

  it("reports migrations a newer build ships as pending", async () => {
    const folder = path.join(deps.dir, "newer");
    fs.mkdirSync(path.join(folder, "meta"), { recursive: true });
    const entries = shipped(folderOf(deps.store.dialect));
    fs.writeFileSync(path.join(folder, "meta", "_journal.json"), JSON.stringify({ entries: [...entries, { idx: entries.length, tag: "9999_next" }] }));
    expect(await deps.store.migrations.status(folder)).toEqual({ applied: entries.length, pending: 1 });
  });

  it("counts none applied when drizzle's journal table is absent", async () => {
    await deps.sql(deps.store.dialect === "sqlite" ? "drop table __drizzle_migrations" : "drop table drizzle.__drizzle_migrations");
    const n = shipped(folderOf(deps.store.dialect)).length;
    expect(await deps.store.migrations.status()).toEqual({ applied: 0, pending: n });
  });
});
