/** Test dependencies: a real migrated SQLite file in a temp dir, a random secret key, silent logs. */
import { randomBytes } from "node:crypto";
import { createTestDb } from "@/db/testing";
import { createSecretBox } from "./crypto/secret-box";
import { silentLogger } from "./logger";
import type { AppDeps } from "./deps";

export function createTestDeps(overrides: Partial<AppDeps> = {}): AppDeps & { close(): void; file: string; dir: string } {
  const t = createTestDb();
  return {
    db: t.db,
    box: createSecretBox(randomBytes(32)),
    publicUrl: "http://127.0.0.1:3999",
    log: silentLogger,
    now: () => new Date(),
    ...overrides,
    file: t.file,
    dir: t.dir,
    close: t.close,
  };
}
