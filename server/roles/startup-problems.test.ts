/**
 * What an operator sees when a scale-out process is started with a wrong setting (real processes,
 * PostgreSQL 15 and Redis 7 on loopback; the same on both test backends, as they start their own):
 * - a DATABASE_URL that cannot be used stops `conveyor migrate` with a message naming PostgreSQL, the
 *   address (never the password), the variable and the usual fix, not the driver's bare words;
 * - a worker whose REDIS_URL points nowhere says so in its log and its readiness (the address, the
 *   variable, the connection's own error), and still stops at once on SIGTERM instead of waiting for
 *   Redis forever;
 * - a process whose CONVEYOR_SECRET_KEY is not the one the stored secrets were encrypted with stops
 *   at start, saying so (it used to run and refuse every delivery to an intake with a secret as
 *   "the database did not answer").
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { openStorage } from "@/db/open";
import { freePort, startPostgres, startRedis, type PgServer, type RedisServer } from "@/db/testing/servers";
import { createSecretBox } from "../crypto/secret-box";
import { depsFromStorage } from "../deps";
import { silentLogger } from "../logger";
import { seedWorkspace } from "../runner/testing/seed";
import { createAutomation } from "../services/automations";
import { childEnv, spawnRole, until } from "./testing/processes";

const ROOT = path.resolve(import.meta.dirname, "../..");
const HAVE_SERVERS = fs.existsSync(path.join(process.env.CONVEYOR_PG_BIN ?? "/usr/lib/postgresql/15/bin", "initdb"));

let pgServer: PgServer;
let redis: RedisServer;
let dir: string;
let env: Record<string, string>;

/** `npx conveyor <args>` to its exit: the exit code and everything it printed. */
function cli(args: string[], vars: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, "bin/conveyor.mjs"), ...args], { cwd: ROOT, env: childEnv(vars), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("exit", (code) => resolve({ code, output }));
  });
}

/** A database URL on the test server with another user, database or port. */
function urlWith(p: { user?: string; password?: string; db?: string; port?: number }): string {
  const u = new URL(pgServer.url);
  if (p.user) u.username = p.user;
  if (p.password) u.password = p.password;
  if (p.db) u.pathname = `/${p.db}`;
  if (p.port) u.port = String(p.port);
  return u.toString();
}

describe.skipIf(!HAVE_SERVERS)("start-up with a wrong setting (scale-out)", () => {
  beforeAll(async () => {
    [pgServer, redis] = await Promise.all([startPostgres(), startRedis()]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-startup-"));
    const admin = new pg.Client({ connectionString: pgServer.url });
    await admin.connect();
    // A user that does not own the database it is given (the README's CREATE DATABASE … OWNER skipped).
    await admin.query("create user app password 'app-pw'");
    await admin.query("create database notowned");
    await admin.end();
    env = {
      REDIS_URL: redis.url,
      CONVEYOR_SECRET_KEY: randomBytes(32).toString("base64"),
      NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
      CONVEYOR_DATA_DIR: dir,
    };
  }, 60_000);

  afterAll(() => {
    pgServer?.stop();
    redis?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a DATABASE_URL that cannot be used: the message names PostgreSQL, where, the variable and the fix", async () => {
    const closed = await freePort();
    const refused = await cli(["migrate"], { ...env, DATABASE_URL: urlWith({ port: closed, password: "s3cret-pw" }) });
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(
      `Cannot connect to PostgreSQL at 127.0.0.1:${closed}/postgres as conveyor (DATABASE_URL): connect ECONNREFUSED 127.0.0.1:${closed}. Is PostgreSQL running`,
    );
    expect(refused.output).not.toContain("s3cret-pw");

    const missing = await cli(["migrate"], { ...env, DATABASE_URL: urlWith({ db: "nope" }) });
    expect(missing.code).toBe(1);
    expect(missing.output).toMatch(/Cannot connect to PostgreSQL at 127\.0\.0\.1:\d+\/nope as conveyor \(DATABASE_URL\): database "nope" does not exist\. Create it first/);

    const notOwned = await cli(["migrate"], { ...env, DATABASE_URL: urlWith({ user: "app", password: "app-pw", db: "notowned" }) });
    expect(notOwned.code).toBe(1);
    expect(notOwned.output).toMatch(/Cannot apply the migrations to PostgreSQL at 127\.0\.0\.1:\d+\/notowned as app \(DATABASE_URL\): permission denied .*must be owned by the user/);
    expect(notOwned.output).not.toContain("app-pw");
  }, 60_000);

  it("a REDIS_URL pointing nowhere: the worker's log and readiness say so, and SIGTERM stops it at once", async () => {
    const closed = await freePort();
    const db = new pg.Client({ connectionString: pgServer.url });
    await db.connect();
    await db.query("create database worker_db");
    await db.end();
    const worker = spawnRole("worker", await freePort(), { ...env, DATABASE_URL: urlWith({ db: "worker_db" }), REDIS_URL: `redis://127.0.0.1:${closed}` });
    try {
      const reason = `Redis at 127.0.0.1:${closed} (REDIS_URL) is unreachable: connect ECONNREFUSED 127.0.0.1:${closed}`;
      const r = await until(
        worker,
        `${worker.base}/api/health/ready`,
        (a) => a.status === 503 && String((a.body.checks as Record<string, string>)?.queue).includes("Redis at"),
        "worker unready, naming Redis",
      );
      expect((r.body.checks as Record<string, string>).queue).toBe(`down: ${reason}`);
      expect(r.body.detail).toContain(reason);
      await until(worker, `${worker.base}/api/health/ready`, () => worker.output().includes('"msg":"redis unreachable'), "the log line");
      expect(worker.output()).toContain(reason);
      expect(worker.output()).not.toContain("enableOfflineQueue");
    } finally {
      const t0 = Date.now();
      await worker.stop();
      // Before: the BullMQ worker's close waited for Redis forever (systemd's TimeoutStopSec then killed it).
      expect(Date.now() - t0).toBeLessThan(10_000);
    }
  }, 60_000);

  it("a CONVEYOR_SECRET_KEY other than the installation's: the process stops at start and says which variable is wrong", async () => {
    const admin = new pg.Client({ connectionString: pgServer.url });
    await admin.connect();
    await admin.query("create database key_db");
    await admin.end();
    const url = urlWith({ db: "key_db" });
    const key = randomBytes(32);
    const storage = await openStorage(url, { pg: { max: 2 } });
    try {
      const deps = await depsFromStorage(
        storage,
        { box: createSecretBox(key), publicUrl: "http://127.0.0.1:3999", log: silentLogger, now: () => new Date() },
        { url: redis.url, prefix: "keycheck" },
      );
      const ws = await seedWorkspace(deps);
      await createAutomation(deps, ws.actor, ws.workspaceId, {
        name: "guarded hook",
        enabled: true,
        graph: { nodes: [{ id: "t", name: "hook", key: "core.webhook", config: { authentication: "bearer", secret: "s3cret-bearer-token" } }], edges: [] },
      });
      await deps.queue.close();
    } finally {
      await storage.store.close();
    }
    const vars = { ...env, DATABASE_URL: url, CONVEYOR_QUEUE_PREFIX: "keycheck" };

    const wrong = spawnRole("ingress", await freePort(), { ...vars, CONVEYOR_SECRET_KEY: randomBytes(32).toString("base64") });
    onTestFinished(() => wrong.stop());
    const exited = new Promise<number | null>((resolve) => wrong.child.once("exit", resolve));
    // Before: it started and turned ready (then answered deliveries to guarded intakes 503 "the database did not answer").
    const code = await Promise.race([exited, until(wrong, `${wrong.base}/api/health/ready`, (a) => a.status === 200, "ingress with a wrong key").then(() => "ready", () => exited)]);
    expect(code).toBe(1);
    expect(wrong.output()).toContain("CONVEYOR_SECRET_KEY is not the key this installation's secrets were encrypted with");

    // The right key starts as before.
    const right = spawnRole("ingress", await freePort(), { ...vars, CONVEYOR_SECRET_KEY: key.toString("base64") });
    try {
      await until(right, `${right.base}/api/health/ready`, (a) => a.status === 200, "ingress with the right key ready");
    } finally {
      await right.stop();
    }
  }, 60_000);
});
