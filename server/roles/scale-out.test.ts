/**
 * Scale-out mode with real processes: PostgreSQL 15 and Redis 7 started on loopback
 * (db/testing/servers.ts), `npx conveyor ingress` and `npx conveyor worker` as separate processes.
 * - a delivery to the ingress is run by the worker; counters and usage add up across the processes;
 * - PostgreSQL stopped: every process turns unready, the ingress answers 503 + Retry-After (never
 *   202), and all of it recovers without a restart once PostgreSQL is back;
 * - Redis killed: the worker turns unready, the ingress keeps accepting (outbox), and once Redis is
 *   back the worker reconnects by itself and runs what was accepted meanwhile;
 * - a blackholed PostgreSQL (a proxy that swallows bytes): the ingress answers 503 within seconds.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStorage, type OpenedStorage } from "@/db/open";
import { freePort, startPostgres, startRedis, type PgServer, type RedisServer } from "@/db/testing/servers";
import { createSecretBox } from "../crypto/secret-box";
import { depsFromStorage, type AppDeps } from "../deps";
import { silentLogger } from "../logger";
import { waitFor, waitForRun } from "../runner/testing/wait";
import { get, postJson, sample, spawnRole, until, type ConveyorProcess } from "./testing/processes";
import { startFaultProxy } from "./testing/fault-proxy";
import { seedHookAutomation } from "./testing/seed-hook";

const HAVE_SERVERS = fs.existsSync(path.join(process.env.CONVEYOR_PG_BIN ?? "/usr/lib/postgresql/15/bin", "initdb"));

let pg: PgServer;
let redis: RedisServer;
let storage: OpenedStorage;
let deps: AppDeps;
let ingress: ConveyorProcess;
let worker: ConveyorProcess;
let hookPath: string;
let workspaceId: string;
let env: Record<string, string>;
let dir: string;
const extra: ConveyorProcess[] = [];

const ready = (a: { status: number }) => a.status === 200;
const unready = (a: { status: number }) => a.status === 503;

async function deliver(p: ConveyorProcess, payload: unknown = { ok: true }) {
  return postJson(p.base + hookPath, payload);
}

describe.skipIf(!HAVE_SERVERS)("scale-out processes (PostgreSQL + Redis)", () => {
  beforeAll(async () => {
    [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-roles-"));
    const key = randomBytes(32);
    storage = await openStorage(pg.url, { pg: { max: 3 } });
    deps = await depsFromStorage(
      storage,
      { box: createSecretBox(key), publicUrl: "http://127.0.0.1:3999", log: silentLogger, now: () => new Date() },
      { url: redis.url },
    );
    ({ hookPath, workspaceId } = await seedHookAutomation(deps));
    env = {
      // A password (trust authentication ignores it) that no log line may show.
      DATABASE_URL: pg.url.replace("conveyor@", "conveyor:s3cret-pw@"),
      REDIS_URL: redis.url,
      CONVEYOR_SECRET_KEY: key.toString("base64"),
      NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
      CONVEYOR_DATA_DIR: dir,
      CONVEYOR_PUBLIC_URL: "http://127.0.0.1:3999",
    };
    const [pi, pw] = [await freePort(), await freePort()];
    ingress = spawnRole("ingress", pi, env);
    worker = spawnRole("worker", pw, env);
    await Promise.all([
      until(ingress, `${ingress.base}/api/health/ready`, ready, "ingress ready"),
      until(worker, `${worker.base}/api/health/ready`, ready, "worker ready"),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([ingress, worker, ...extra].map((p) => p?.stop()));
    await deps?.queue.close();
    await storage?.store.close();
    pg?.stop();
    redis?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("the ingress commits a delivery that the worker runs; counters and usage add up across processes", async () => {
    const r = await deliver(ingress);
    expect(r.status).toBe(202);
    const runId = (r.body.runIds as string[])[0]!;
    expect(await waitForRun(deps, runId, ["succeeded", "failed"], 30_000)).toBe("succeeded");

    const readyBody = (await get(`${worker.base}/api/health/ready`)).body;
    expect(readyBody).toMatchObject({ status: "ready", role: "worker", checks: { database: "ok", queue: "ok", runner: "ok" } });
    expect((await get(`${ingress.base}/api/health/ready`)).body).toMatchObject({ role: "ingress", checks: { database: "ok", queue: "ok" } });
    expect((await get(`${ingress.base}/api/health`)).body).toMatchObject({ status: "ok", database: "ok", migrations: { pending: 0 } });

    // Each process serves its own counters: the ingress accepted, the worker finished.
    const mi = (await get(`${ingress.base}/metrics`)).text;
    const mw = (await get(`${worker.base}/metrics`)).text;
    expect(sample(mi, 'conveyor_webhook_deliveries_total{result="accepted"}')).toBe(1);
    expect(sample(mw, 'conveyor_webhook_deliveries_total{result="accepted"}')).toBeUndefined();
    expect(sample(mw, 'conveyor_runs_finished_total{status="succeeded"}')).toBe(1);
    expect(sample(mi, 'conveyor_runs_finished_total{status="succeeded"}')).toBeUndefined();
    expect(sample(mi, 'conveyor_process_role{role="ingress"}')).toBe(1);
    expect(sample(mw, 'conveyor_process_role{role="worker"}')).toBe(1);
    // Cluster gauges come from the database: the same in both.
    for (const m of [mi, mw]) {
      expect(sample(m, 'conveyor_runs{status="succeeded"}')).toBe(1);
      expect(sample(m, "conveyor_redis_up")).toBe(1);
      expect(sample(m, "conveyor_database_up")).toBe(1);
      expect(sample(m, "conveyor_outbox_rows")).toBe(0);
      expect(sample(m, "conveyor_pg_pool_waiting")).toBe(0);
    }

    // Usage: the ingress flushes the event it received, the worker the run it finished.
    const usage = async (metric: string) =>
      Number((await deps.store.usage.list(workspaceId, "0000", "9999")).filter((u) => u.metric === metric).reduce((n, u) => n + u.value, 0));
    await waitFor(async () => (await usage("events.received")) === 1 && (await usage("runs.succeeded")) === 1, 15_000, "usage flushed by both processes");
  });

  it("PostgreSQL stopped: readiness 503 everywhere, deliveries 503 + Retry-After; everything recovers after the restart", async () => {
    pg.halt();
    try {
      const [ri, rw] = await Promise.all([
        until(ingress, `${ingress.base}/api/health/ready`, unready, "ingress unready"),
        until(worker, `${worker.base}/api/health/ready`, unready, "worker unready"),
      ]);
      for (const r of [ri, rw]) {
        expect(r.headers.get("content-type")).toBe("application/problem+json");
        expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
        expect(r.body).toMatchObject({ status: 503, code: "unavailable" });
        expect(r.body.down).toContain("database");
      }
      for (let i = 0; i < 3; i++) {
        const d = await deliver(ingress);
        expect(d.status).toBe(503);
        expect(d.headers.get("retry-after")).toMatch(/^\d+$/);
        expect(d.headers.get("content-type")).toBe("application/problem+json");
        expect(d.body).toMatchObject({ status: 503, code: "unavailable" });
      }
      expect(sample((await get(`${ingress.base}/metrics`)).text, "conveyor_database_up")).toBe(0);
      // The outage goes on for a while (the scenario's length, not a wait for something): the worker's
      // maintenance (every second), lease renewal and sweeper, and the ingress's sweeper keep failing.
      await new Promise((r) => setTimeout(r, 8000));
    } finally {
      await pg.restart();
    }
    await Promise.all([
      until(ingress, `${ingress.base}/api/health/ready`, ready, "ingress ready again"),
      until(worker, `${worker.base}/api/health/ready`, ready, "worker ready again"),
    ]);
    // Each process said the outage once, naming the server (not the password), and once that it ended.
    const target = `PostgreSQL at 127.0.0.1:${pg.port}/postgres as conveyor (DATABASE_URL)`;
    const count = (p: ConveyorProcess, re: RegExp) => p.output().split("\n").filter((l) => re.test(l)).length;
    for (const p of [ingress, worker]) {
      await waitFor(() => count(p, /reachable again after/) > 0, 15_000, "the end of the outage to be logged");
      expect(count(p, new RegExp(`"level":"error".*"msg":"${target.replace(/[.()]/g, "\\$&")} is unreachable`)), p.output()).toBe(1);
      expect(count(p, /reachable again after \d+(\.\d)? s/), p.output()).toBe(1);
      expect(count(p, /maintenance failed|sweep failed|claim failed|lease renewal failed|giving a step back failed|still unreachable/), p.output()).toBe(0);
      expect(p.output()).not.toContain("s3cret-pw");
    }
    const d = await deliver(ingress);
    expect(d.status).toBe(202);
    expect(await waitForRun(deps, (d.body.runIds as string[])[0]!, ["succeeded", "failed"], 30_000)).toBe("succeeded");
    expect(sample((await get(`${ingress.base}/metrics`)).text, 'conveyor_webhook_deliveries_total{result="unavailable"}')).toBe(3);
  }, 120_000);

  it("Redis killed: the worker turns unready and reconnects by itself; the ingress keeps accepting into the outbox", async () => {
    redis.kill();
    let during: string;
    try {
      const rw = await until(worker, `${worker.base}/api/health/ready`, unready, "worker unready without Redis");
      expect(rw.body.down).toEqual(expect.arrayContaining(["queue"]));
      // The ingress stays ready (work is kept in PostgreSQL's outbox) and says Redis is down.
      const ri = await until(
        ingress,
        `${ingress.base}/api/health/ready`,
        (a) => String((a.body.checks as Record<string, string>)?.queue).startsWith("down"),
        "ingress sees Redis down",
      );
      expect(ri.status).toBe(200);
      const d = await deliver(ingress);
      expect(d.status).toBe(202);
      during = (d.body.runIds as string[])[0]!;
      const m = await until(ingress, `${ingress.base}/metrics`, (a) => sample(a.text, "conveyor_redis_up") === 0, "conveyor_redis_up 0");
      expect(sample(m.text, "conveyor_outbox_rows")).toBeGreaterThanOrEqual(1);
    } finally {
      await redis.restart();
    }
    await until(worker, `${worker.base}/api/health/ready`, ready, "worker ready after Redis is back");
    // Accepted while Redis was away: published by a sweeper, run by the worker.
    expect(await waitForRun(deps, during, ["succeeded", "failed"], 30_000)).toBe("succeeded");
    const d = await deliver(ingress);
    expect(d.status).toBe(202);
    expect(await waitForRun(deps, (d.body.runIds as string[])[0]!, ["succeeded", "failed"], 30_000)).toBe("succeeded");
    await waitFor(async () => Number((await deps.store.metrics.outbox()).rows) === 0, 15_000, "outbox drained");
  }, 120_000);

  it("a blackholed PostgreSQL: the ingress answers 503 within seconds, and 202 again once it answers", async () => {
    const proxy = await startFaultProxy({ port: pg.port });
    try {
      const port = await freePort();
      // A generous overall deadline, so the 503 below comes from the pool's own fail-fast timeouts.
      const p = spawnRole("ingress", port, { ...env, DATABASE_URL: pg.url.replace(`:${pg.port}/`, `:${proxy.port}/`), CONVEYOR_WEBHOOK_TIMEOUT_MS: "60000" });
      extra.push(p);
      await until(p, `${p.base}/api/health/ready`, ready, "proxied ingress ready");
      expect((await deliver(p)).status).toBe(202);

      proxy.set("blackhole");
      const r = await until(p, `${p.base}/api/health/ready`, unready, "proxied ingress unready", 20_000);
      expect(r.body.detail).toMatch(/database/);
      // Non-ingress pools would wait 35 s for an answer; the ingress pool gives up within about 4 s.
      const d = await postJson(p.base + hookPath, { ok: true }, 15_000);
      expect(d.status).toBe(503);
      expect(d.headers.get("retry-after")).toMatch(/^\d+$/);

      proxy.set("pass");
      await until(p, `${p.base}/api/health/ready`, ready, "proxied ingress ready again", 30_000);
      expect((await deliver(p)).status).toBe(202);
      await p.stop();
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
