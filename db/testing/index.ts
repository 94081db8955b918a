/** Test helpers: a real SQLite database (file in a temp dir, or in memory) with real migrations. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb, closeDb, type Db } from "../client";

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
