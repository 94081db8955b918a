/**
 * Real processes on one real SQLite file: a worker killed with SIGKILL mid-run and a fresh worker
 * finishing the work (no completed step runs twice), and two workers never claiming the same step.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSecretBox } from "../crypto/secret-box";
import { createTestDeps } from "../testing";
import { createAutomation } from "../services/automations";
import { startRun } from "../services/runs";
import { registerStubs } from "./testing/stub-integration";
import { linearGraph, seedWorkspace } from "./testing/seed";
import { waitFor } from "./testing/wait";

registerStubs();
const children: ChildProcess[] = [];
afterEach(async () => children.forEach((c) => c.exitCode === null && c.kill("SIGKILL")));

function spawnWorker(shared: Record<string, string>, key: string, env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "server/runner/testing/worker-child.ts"], {
    cwd: process.cwd(),
    env: { ...process.env, ...shared, SECRET_HEX: key, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve(child));
    child.on("exit", (code) => reject(new Error(`worker exited early (${code})`)));
  });
}

async function setup() {
  const key = randomBytes(32);
  const deps = await createTestDeps({ box: createSecretBox(key) });
  return { deps, key: key.toString("hex"), ws: await seedWorkspace(deps) };
}

const q = (deps: Awaited<ReturnType<typeof createTestDeps>>, sql: string, ...args: unknown[]) => deps.sql<Record<string, unknown>>(sql, ...args);
const n = async (deps: Awaited<ReturnType<typeof createTestDeps>>, sql: string, ...args: unknown[]) => Number((await q(deps, sql, ...args))[0]!.n);

describe("runner processes", () => {
  it("finishes every run after a worker is killed with SIGKILL mid-run; completed steps never run again", async () => {
    const { deps, key, ws } = await setup();
    const marks = path.join(deps.dir, "marks.log");
    const step = { key: "stub.mark", config: { file: marks, sleepMs: 120 } };
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, linearGraph([step, step, step]));
    for (let i = 0; i < 16; i++) await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id });

    const first = await spawnWorker(deps.childEnv, key, { LEASE_MS: "1500", CONCURRENCY: "4" });
    await waitFor(async () => (await n(deps, "select count(*) as n from run_steps where status = 'succeeded'")) >= 12, 20_000, "progress");
    first.kill("SIGKILL");
    await new Promise((r) => first.once("exit", r));
    const doneBeforeKill = new Set((await q(deps, "select id from run_steps where status = 'succeeded'")).map((r) => r.id as string));
    expect(await n(deps, "select count(*) as n from runs where status in ('succeeded','failed')")).toBeLessThan(16);

    const second = await spawnWorker(deps.childEnv, key, { LEASE_MS: "1500", CONCURRENCY: "4" });
    await waitFor(async () => (await n(deps, "select count(*) as n from runs where status = 'succeeded'")) === 16, 40_000, "all runs");
    second.kill("SIGTERM");
    await new Promise((r) => second.once("exit", r));

    const lines = fs
      .readFileSync(marks, "utf8")
      .trim()
      .split("\n")
      .map((l) => l.split(" "));
    const bySecond = lines.filter(([pid]) => Number(pid) === second.pid).map(([, stepId]) => stepId!);
    for (const id of bySecond) expect(doneBeforeKill.has(id), `completed step ${id} ran again`).toBe(false);
    const perStep = new Map<string, number>();
    for (const [, id] of lines) perStep.set(id!, (perStep.get(id!) ?? 0) + 1);
    const succeeded = await q(deps, "select id from run_steps where status = 'succeeded'");
    expect(succeeded).toHaveLength(48);
    for (const r of succeeded) expect(perStep.get(r.id as string)).toBeGreaterThanOrEqual(1);
    const twice = [...perStep.values()].filter((n) => n > 1).length;
    expect(twice).toBeLessThanOrEqual(4); // only steps in flight at the kill (concurrency 4) may have run twice
    expect(await n(deps, "select count(*) as n from jobs")).toBe(0);
    await deps.close();
  }, 90_000);

  it("two workers on one database never claim the same step", async () => {
    const { deps, key, ws } = await setup();
    const marks = path.join(deps.dir, "marks.log");
    const step = { key: "stub.mark", config: { file: marks, sleepMs: 5 } };
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, { ...linearGraph([step, step]), concurrency: 1000 });
    const [w1, w2] = await Promise.all([spawnWorker(deps.childEnv, key, { CONCURRENCY: "8" }), spawnWorker(deps.childEnv, key, { CONCURRENCY: "8" })]);
    for (let i = 0; i < 150; i++) await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id });
    await waitFor(async () => (await n(deps, "select count(*) as n from runs where status = 'succeeded'")) === 150, 60_000, "all runs");
    w1.kill("SIGTERM");
    w2.kill("SIGTERM");
    await Promise.all([new Promise((r) => w1.once("exit", r)), new Promise((r) => w2.once("exit", r))]);
    const lines = fs
      .readFileSync(marks, "utf8")
      .trim()
      .split("\n")
      .map((l) => l.split(" "));
    expect(lines).toHaveLength(300);
    expect(new Set(lines.map((l) => l[1])).size).toBe(300);
    const pids = new Set(lines.map((l) => l[0]));
    expect(pids.size).toBe(2); // both did work
    await deps.close();
  }, 90_000);
});
