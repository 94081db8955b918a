/**
 * The chaos cluster: PostgreSQL 15 and Redis 7 on loopback (durable PostgreSQL: fsync on), a TCP
 * fault proxy in front of each, and 2 `conveyor ingress` + 3 `conveyor worker` processes that
 * reach both only through the proxies. The test itself reads PostgreSQL directly (for seeding and
 * the invariants) and controls the faults.
 *
 * The processes are started as `node --import tsx server/cli/main.ts <role>` (what
 * `npx conveyor <role>` execs), so a kill -9 hits the process that holds the work, not a wrapper.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openStorage, type OpenedStorage } from "@/db/open";
import { testSql, type TestSql } from "@/db/testing";
import { freePort, startPostgres, startRedis, type PgServer, type RedisServer } from "@/db/testing/servers";
import { createSecretBox } from "@/server/crypto/secret-box";
import { depsFromStorage, type AppDeps } from "@/server/deps";
import { silentLogger } from "@/server/logger";
import { seedWorkspace } from "@/server/runner/testing/seed";
import { createAutomation } from "@/server/services/automations";
import { startFaultProxy, type FaultProxy } from "@/server/roles/testing/fault-proxy";
import { childEnv, get } from "@/server/roles/testing/processes";

const ROOT = path.resolve(import.meta.dirname, "..");

export type Role = "ingress" | "worker";

/** One role slot: a port and the process currently running there (replaced after a kill). */
export interface Member {
  role: Role;
  name: string;
  port: number;
  base: string;
  pid(): number;
  alive(): boolean;
  output(): string;
  kill9(): Promise<void>;
  /** Starts the role again on the same port (after a kill). */
  respawn(): void;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
}

export interface Cluster {
  pg: PgServer;
  redis: RedisServer;
  pgProxy: FaultProxy;
  redisProxy: FaultProxy;
  ingress: Member[];
  workers: Member[];
  members(): Member[];
  deps: AppDeps;
  sql: TestSql;
  hookPath: string;
  intakeId: string;
  automationId: string;
  /** Resolves when every process answers readiness 200 (fails with the laggard's output). */
  allReady(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** The automation: webhook → slow HTTP call (long enough that kills land mid-step) → filter → notify. */
async function seedAutomation(deps: AppDeps, effects: string) {
  const ws = await seedWorkspace(deps);
  const body = { n: "{{ $trigger.data.body.n }}" };
  const a = await createAutomation(deps, ws.actor, ws.workspaceId, {
    name: "chaos",
    enabled: true,
    concurrency: 500,
    graph: {
      nodes: [
        { id: "t", name: "hook", key: "core.webhook", config: {} },
        { id: "slow", name: "slow", key: "core.http", config: { method: "POST", url: `${effects}/slow`, body, timeoutMs: 20_000 } },
        { id: "check", name: "check", key: "core.filter", config: { condition: "{{ $steps.slow.data.status = 200 }}" } },
        { id: "notify", name: "notify", key: "core.http", config: { method: "POST", url: `${effects}/notify`, body, timeoutMs: 20_000 } },
      ],
      edges: [
        { from: "t", to: "slow" },
        { from: "slow", to: "check" },
        { from: "check", to: "notify" },
      ],
    },
  });
  const url = a.triggers[0]!.url!;
  const token = new URL(url).pathname.split("/").pop()!;
  return { hookPath: new URL(url).pathname, automationId: a.id, token };
}

function member(role: Role, name: string, port: number, env: Record<string, string>): Member {
  let out = "";
  let child = start();
  function start() {
    const c = spawn(process.execPath, ["--max-semi-space-size=16", "--import", "tsx", path.join(ROOT, "server/cli/main.ts"), role, "--port", String(port)], {
      cwd: ROOT,
      env: childEnv(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const keep = (d: Buffer) => (out = (out + d.toString()).slice(-20_000));
    c.stdout.on("data", keep);
    c.stderr.on("data", keep);
    return c;
  }
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    role,
    name,
    port,
    base: `http://127.0.0.1:${port}`,
    pid: () => child.pid!,
    alive,
    output: () => `--- ${name} (pid ${child.pid}) ---\n${out}`,
    async kill9() {
      if (!alive()) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    },
    respawn() {
      if (alive()) throw new Error(`${name} is still running`);
      out += `\n--- respawned ---\n`;
      child = start();
    },
    async stop() {
      if (!alive()) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const t = setTimeout(() => child.kill("SIGKILL"), 30_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** Polls a member's readiness until 200; throws with its output when it exits or the deadline passes. */
export async function ready(m: Member, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer yet";
  for (;;) {
    if (!m.alive()) throw new Error(`${m.name} exited while waiting for readiness\n${m.output()}`);
    try {
      const a = await get(`${m.base}/api/health/ready`, 5000);
      if (a.status === 200) return;
      last = `${a.status} ${a.text.slice(0, 300)}`;
    } catch (e) {
      last = (e as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`${m.name} not ready after ${timeoutMs} ms; last answer: ${last}\n${m.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function startCluster(opts: { effectsUrl: string; leaseMs: number }): Promise<Cluster> {
  const [pg, redis] = await Promise.all([startPostgres({ durable: true }), startRedis()]);
  const [pgProxy, redisProxy] = await Promise.all([startFaultProxy({ port: pg.port }), startFaultProxy({ port: redis.port })]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-chaos-"));
  const key = randomBytes(32);
  const storage: OpenedStorage = await openStorage(pg.url, { pg: { max: 4 } });
  const deps = await depsFromStorage(
    storage,
    { box: createSecretBox(key), publicUrl: "http://127.0.0.1:3999", log: silentLogger, now: () => new Date() },
    { url: redis.url },
  );
  const seeded = await seedAutomation(deps, opts.effectsUrl);
  const sql = testSql(storage);
  const intakeId = (await sql<{ id: string }>("select id from intakes where token = ?", seeded.token))[0]!.id;
  const env = {
    DATABASE_URL: pg.url.replace(`:${pg.port}/`, `:${pgProxy.port}/`),
    REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
    CONVEYOR_SECRET_KEY: key.toString("base64"),
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
    CONVEYOR_DATA_DIR: dir,
    CONVEYOR_PUBLIC_URL: "http://127.0.0.1:3999",
    CONVEYOR_RUNNER_LEASE_MS: String(opts.leaseMs),
    CONVEYOR_PG_POOL_MAX: "8",
  };
  const ports = await Promise.all([0, 1, 2, 3, 4].map(() => freePort()));
  const ingress = [0, 1].map((i) => member("ingress", `ingress-${i + 1}`, ports[i]!, env));
  const workers = [0, 1, 2].map((i) => member("worker", `worker-${i + 1}`, ports[2 + i]!, env));
  const members = () => [...ingress, ...workers];
  const cluster: Cluster = {
    pg,
    redis,
    pgProxy,
    redisProxy,
    ingress,
    workers,
    members,
    deps,
    sql,
    hookPath: seeded.hookPath,
    intakeId,
    automationId: seeded.automationId,
    async allReady(timeoutMs = 120_000) {
      await Promise.all(members().map((m) => ready(m, timeoutMs)));
    },
    async close() {
      pgProxy.set("pass");
      redisProxy.set("pass");
      await Promise.all(members().map((m) => m.stop()));
      await deps.queue.close();
      await storage.store.close();
      await Promise.all([pgProxy.close(), redisProxy.close()]);
      pg.stop();
      redis.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await cluster.allReady(180_000);
  } catch (e) {
    await cluster.close().catch(() => undefined);
    throw e;
  }
  return cluster;
}
