/**
 * One schema source (db/schema/*), two migration folders: both must describe the schema as it is.
 * A schema change without `npx drizzle-kit generate` for either dialect fails here, with the statements
 * the missing migration would hold.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as pgSchema from "./pg/schema";
import * as sqliteSchema from "./schema";

function latestSnapshot(folder: string): { id: string } & Record<string, unknown> {
  const journal = JSON.parse(fs.readFileSync(path.join(folder, "meta/_journal.json"), "utf8")) as { entries: Array<{ idx: number; tag: string }> };
  const last = journal.entries.at(-1)!;
  const file = path.join(folder, "meta", `${String(last.idx).padStart(4, "0")}_snapshot.json`);
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

describe("migrations are current with db/schema", () => {
  it("SQLite (db/migrations): generating again would produce nothing", async () => {
    const api = await import("drizzle-kit/api");
    const prev = latestSnapshot("db/migrations");
    const now = await api.generateSQLiteDrizzleJson(sqliteSchema, prev.id, "snake_case");
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    expect(await api.generateSQLiteMigration(prev as any, now)).toEqual([]);
  });

  it("PostgreSQL (db/migrations-pg): generating again would produce nothing", async () => {
    const api = await import("drizzle-kit/api");
    const prev = latestSnapshot("db/migrations-pg");
    const now = await api.generateDrizzleJson(pgSchema, prev.id, undefined, "snake_case");
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    expect(await api.generateMigration(prev as any, now)).toEqual([]);
  });

  it("both journals list every migration file of their folder", () => {
    for (const folder of ["db/migrations", "db/migrations-pg"]) {
      const journal = JSON.parse(fs.readFileSync(path.join(folder, "meta/_journal.json"), "utf8")) as { entries: Array<{ tag: string }> };
      const files = fs
        .readdirSync(folder)
        .filter((f) => f.endsWith(".sql"))
        .map((f) => f.replace(/\.sql$/, ""))
        .sort();
      expect(journal.entries.map((e) => e.tag).sort(), folder).toEqual(files);
    }
  });
});
