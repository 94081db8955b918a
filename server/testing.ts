/** Test dependencies: a real migrated database (SQLite file, or PostgreSQL under CONVEYOR_TEST_BACKEND=postgres), a random secret key, silent logs. */
import { randomBytes } from "node:crypto";
import { createTestStorage, type TestSql } from "@/db/testing";
import { createSecretBox } from "./crypto/secret-box";
import { silentLogger } from "./logger";
import type { AppDeps } from "./deps";

export type TestDeps = AppDeps & {
  close(): Promise<void>;
  /** Raw SQL for assertions, on whichever backend the test runs (`?` placeholders). */
  sql: TestSql;
  /** SQLite file path or PostgreSQL database URL (child processes open the same database). */
  url: string;
  /** Environment for a child process that must share this test's database and queue (worker-child, refresh children). */
  childEnv: Record<string, string>;
  /** @deprecated SQLite file path; use `url`. */
  file: string;
  dir: string;
};

export async function createTestDeps(overrides: Partial<AppDeps> = {}): Promise<TestDeps> {
  const t = await createTestStorage();
  const queuePrefix = `t${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const queue = t.queue ?? (await (await import("@/db/queue/bullmq")).openBullmqQueue(process.env.CONVEYOR_TEST_REDIS_URL!, t, { prefix: queuePrefix }));
  return {
    store: t.store,
    queue,
    box: createSecretBox(randomBytes(32)),
    publicUrl: "http://127.0.0.1:3999",
    log: silentLogger,
    now: () => new Date(),
    ...overrides,
    sql: t.sql,
    url: t.url,
    childEnv: { DB_URL: t.url, QUEUE_PREFIX: queuePrefix, ...(process.env.CONVEYOR_TEST_REDIS_URL ? { REDIS_URL: process.env.CONVEYOR_TEST_REDIS_URL } : {}) },
    file: t.url,
    dir: t.dir,
    async close() {
      await queue.close();
      await t.close();
    },
  };
}
