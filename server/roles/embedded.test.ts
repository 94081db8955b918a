/**
 * Embedded mode (one SQLite file, no settings) with several processes on it:
 * - `npx conveyor ingress` and `npx conveyor worker`: deliveries to the ingress are run by the worker;
 * - a worker started through npx stops when npx is stopped (npx's shell does not pass SIGTERM on);
 * - with a Next build (NEXT_DIST_DIR, default .next; `npm test` runs this again after `next build`):
 *   the web process as `npm start` runs it with CONVEYOR_RUNNER=0 next to them; both doors accept
 *   deliveries, the web process serves readiness, and its usage flusher counts what it received.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { openStorage, type OpenedStorage } from "@/db/open";
import { freePort } from "@/db/testing/servers";
import { createSecretBox } from "../crypto/secret-box";
import { depsFromStorage, type AppDeps } from "../deps";
import { silentLogger } from "../logger";
import { waitFor, waitForRun } from "../runner/testing/wait";
import { childEnv, get, postJson, sample, spawnRole, spawnWeb, until, type ConveyorProcess } from "./testing/processes";
import { seedHookAutomation } from "./testing/seed-hook";

const ROOT = path.resolve(import.meta.dirname, "../..");
const DIST = process.env.NEXT_DIST_DIR ?? ".next";
const BUILT = fs.existsSync(path.join(ROOT, DIST, "BUILD_ID"));

let dir: string;
let storage: OpenedStorage;
let deps: AppDeps;
let env: Record<string, string>;
let seeded: Awaited<ReturnType<typeof seedHookAutomation>>;
const procs: ConveyorProcess[] = [];

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-embedded-roles-"));
  const file = path.join(dir, "conveyor.db");
  const key = randomBytes(32);
  storage = await openStorage(file);
  deps = await depsFromStorage(storage, { box: createSecretBox(key), publicUrl: "http://127.0.0.1:3999", log: silentLogger, now: () => new Date() });
  seeded = await seedHookAutomation(deps);
  env = { DATABASE_URL: file, CONVEYOR_DATA_DIR: dir, CONVEYOR_SECRET_KEY: key.toString("base64"), NEXTAUTH_SECRET: randomBytes(32).toString("base64url") };
});

afterEach(async () => {
  await Promise.all(procs.splice(0).map((p) => p.stop()));
  await storage.store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const ready = (a: { status: number }) => a.status === 200;
const usage = async (metric: string) =>
  (await deps.store.usage.list(seeded.workspaceId, "0000", "9999")).filter((u) => u.metric === metric).reduce((n, u) => n + u.value, 0);

describe("embedded mode: several processes on one SQLite file", () => {
  it("conveyor ingress takes deliveries that conveyor worker runs", async () => {
    const ingress = spawnRole("ingress", await freePort(), env);
    const worker = spawnRole("worker", await freePort(), env);
    procs.push(ingress, worker);
    await until(ingress, `${ingress.base}/api/health/ready`, ready, "ingress ready");
    const wr = await until(worker, `${worker.base}/api/health/ready`, ready, "worker ready");
    expect(wr.body).toMatchObject({ role: "worker", checks: { database: "ok", runner: "ok" } });
    expect((wr.body.checks as Record<string, string>).queue).toBeUndefined(); // the queue is the SQLite file

    const runIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await postJson(ingress.base + seeded.hookPath, { ok: true, i });
      expect(r.status).toBe(202);
      runIds.push(...(r.body.runIds as string[]));
    }
    for (const id of runIds) expect(await waitForRun(deps, id, ["succeeded", "failed"], 30_000)).toBe("succeeded");
    expect(sample((await get(`${worker.base}/metrics`)).text, 'conveyor_runs_finished_total{status="succeeded"}')).toBe(5);
    await waitFor(async () => (await usage("events.received")) === 5, 15_000, "the ingress's usage flushed");
  }, 90_000);

  it("npx conveyor worker whose npx is stopped stops too (npx's shell never passes the SIGTERM on)", async () => {
    const port = await freePort();
    // npx's shape: npm exec (npm_command=exec) → sh -c → node. A SIGTERM to npx ends it and the shell;
    // the shell kept here dies of its SIGTERM the same way, leaving the worker an orphan.
    const sh = spawn("sh", ["-c", `"${process.execPath}" bin/conveyor.mjs worker --port ${port}; exit $?`], {
      cwd: ROOT,
      env: childEnv({ ...env, npm_command: "exec" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    for (const s of [sh.stdout, sh.stderr]) s.on("data", (d: Buffer) => (out += d.toString()));
    const base = `http://127.0.0.1:${port}`;
    const launcher = { child: sh, base, output: () => out, stop: async () => undefined };
    await until(launcher, `${base}/api/health/ready`, ready, "worker under sh ready");
    const workerPid = Number(execFileSync("pgrep", ["-P", String(sh.pid)]).toString().trim());
    sh.kill("SIGTERM");
    // Before: the orphan went on answering (and taking work) until killed by hand.
    onTestFinished(() => {
      try {
        process.kill(workerPid, "SIGKILL");
      } catch {
        /* it stopped */
      }
    });
    await waitFor(
      async () => {
        try {
          await get(`${base}/api/health`, 1000);
          return false;
        } catch {
          return true;
        }
      },
      15_000,
      `the orphaned worker stopped; its output:\n${out}`,
    );
    expect(out).toMatch(/npx \(pid \d+\) exited: stopping the worker/);
  }, 60_000);

  it.skipIf(!BUILT)(
    "conveyor ingress next to npm start (CONVEYOR_RUNNER=0) and a worker: both doors accept, the web process is ready and flushes its usage",
    async () => {
      const web = spawnWeb(await freePort(), { ...env, CONVEYOR_RUNNER: "0", NEXT_DIST_DIR: DIST });
      const ingress = spawnRole("ingress", await freePort(), env);
      const worker = spawnRole("worker", await freePort(), env);
      procs.push(web, ingress, worker);
      const wr = await until(web, `${web.base}/api/health/ready`, ready, "web ready", 120_000);
      expect(wr.body).toMatchObject({ status: "ready", role: "web", checks: { database: "ok" } });
      expect((wr.body.checks as Record<string, string>).runner).toBeUndefined();
      await until(ingress, `${ingress.base}/api/health/ready`, ready, "ingress ready");
      await until(worker, `${worker.base}/api/health/ready`, ready, "worker ready");

      const a = await postJson(web.base + seeded.hookPath, { ok: true, via: "web" });
      const b = await postJson(ingress.base + seeded.hookPath, { ok: true, via: "ingress" });
      expect([a.status, b.status]).toEqual([202, 202]);
      for (const r of [a, b]) expect(await waitForRun(deps, (r.body.runIds as string[])[0]!, ["succeeded", "failed"], 30_000)).toBe("succeeded");
      expect(sample((await get(`${web.base}/metrics`)).text, 'conveyor_process_role{role="web"}')).toBe(1);
      // Each process flushed what it received; the totals add up.
      await waitFor(async () => (await usage("events.received")) === 2 && (await usage("runs.succeeded")) === 2, 15_000, "usage of both doors and the worker");
    },
    180_000,
  );
});
