/**
 * Moving a whole SQLite installation to PostgreSQL with `npx conveyor migrate-to-postgres` (a real
 * process): the installation is filled through the services (owner, workspace, automation with two
 * versions, a connection with encrypted secrets, finished runs with steps, a task with activity, an
 * intake, usage, audit, and two runs still in flight, one of them leased by a runner that stopped),
 * then copied; the PostgreSQL side is opened with the real store and must answer the same through the
 * same services, decrypt with the same key, and finish the work in flight on BullMQ.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStorage } from "@/db/open";
import { jsonCol } from "@/db/testing";
import { startMigrationTestServers, tableCounts, type MigrationTestServers } from "@/db/migrate-to-postgres/testing";
import type { StepJob } from "@/db/engine";
import { createSecretBox } from "../crypto/secret-box";
import { depsFromStorage, type AppDeps } from "../deps";
import { silentLogger } from "../logger";
import { runnerHooks } from "../runner-hooks";
import { startRunner } from "../runner/runner-loop";
import { linearGraph } from "../runner/testing/seed";
import { registerStubs } from "../runner/testing/stub-integration";
import { waitFor, waitForRun } from "../runner/testing/wait";
import type { Actor } from "../auth/permissions";
import { listAudit } from "../services/audit/list-audit";
import { createAutomation, getAutomationOrThrow, listVersions, replaceAutomation } from "../services/automations";
import { createConnection, listConnections, loadConnectionHandle } from "../services/connections";
import { createWebhookIntake, listIntakes } from "../services/intakes-webhook/intakes";
import { getRunOrThrow, listRuns, startRun } from "../services/runs";
import { createTask } from "../services/tasks/create-task";
import { addTaskComment, listTaskActivity, listTasks } from "../services/tasks/tasks";
import { addUsage } from "../services/usage/buckets";
import { getUsage } from "../services/usage/get-usage";
import { getUserActor } from "../services/users/get-user-actor";
import { setupOwner } from "../services/users/setup-owner";
import { listWorkspaces } from "../services/workspaces/list-workspaces";
import { migrateToPostgresCommand } from "./migrate-to-postgres";

registerStubs();

let servers: MigrationTestServers;
let dir: string;
let file: string;
let target: string;
const key = randomBytes(32);
const rest = () => ({ box: createSecretBox(key), publicUrl: "http://127.0.0.1:3999", log: silentLogger, now: () => new Date() });

/** What the SQLite installation answered through the services before it was stopped. */
let before: Awaited<ReturnType<typeof readAll>>;
let actor: Actor;
let ws: string;
let ids: { automation: string; connection: string; task: string; intake: string; intakeSecret: string; finished: string[]; queued: string; leased: string };

async function readAll(deps: AppDeps) {
  const window = { from: "2030-01-01T00:00:00Z", to: "2030-01-02T00:00:00Z", granularity: "hour" as const };
  return {
    actor: await getUserActor(deps, (actor as { userId: string }).userId),
    workspaces: await listWorkspaces(deps, actor),
    automation: await getAutomationOrThrow(deps, actor, ws, ids.automation),
    versions: await listVersions(deps, actor, ws, ids.automation),
    runs: await listRuns(deps, actor, ws, { limit: 2 }),
    finished: await Promise.all(ids.finished.map((id) => getRunOrThrow(deps, actor, ws, id))),
    queued: await getRunOrThrow(deps, actor, ws, ids.queued),
    leased: await getRunOrThrow(deps, actor, ws, ids.leased),
    tasks: await listTasks(deps, actor, ws, {}),
    activity: await listTaskActivity(deps, actor, ws, ids.task, {}),
    intakes: await listIntakes(deps, actor, ws),
    connections: await listConnections(deps, actor, ws),
    connectionConfig: (await loadConnectionHandle(deps, ids.connection)).config,
    usage: await getUsage(deps, actor, ws, window),
    audit: await listAudit(deps, actor, { limit: 200 }),
  };
}

beforeAll(async () => {
  servers = await startMigrationTestServers({ redis: true });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-mtp-cli-"));
  // The installation's data dir: the database and the key generated next to it.
  file = path.join(dir, "conveyor.db");
  fs.writeFileSync(path.join(dir, "secret.key"), key.toString("base64") + "\n", { mode: 0o600 });
  fs.writeFileSync(path.join(dir, "auth.secret"), randomBytes(32).toString("base64") + "\n", { mode: 0o600 });

  const storage = await openStorage(file);
  const deps = await depsFromStorage(storage, rest());
  const owner = await setupOwner(deps, { email: "owner@example.com", password: "correct horse battery staple" });
  actor = (await getUserActor(deps, owner.user.id))!;
  ws = owner.workspace.id;

  const echo = linearGraph([{ key: "stub.echo", name: "echo", config: { value: "{{ $trigger.data.n }}" } }]);
  const a = await createAutomation(deps, actor, ws, echo);
  await replaceAutomation(deps, actor, ws, a.id, { ...echo, name: "echo v2", description: "second version" });
  const con = await createConnection(deps, actor, ws, {
    integration: "metrics",
    name: "prometheus",
    config: { metricsBaseUrl: "http://127.0.0.1:9", apiAuth: { type: "bearer", token: "tok-very-secret" }, webhookSecret: "whs-also-secret" },
  });
  const line = (await deps.store.lines.list(ws, { limit: 1 }))[0]!;
  const task = await createTask(deps, actor, ws, { lineId: line.id, title: "Disk full on db-1", status: "draft", data: { host: "db-1", z: 1, a: 2 } });
  await addTaskComment(deps, actor, ws, task.id, "looking into it");
  const intake = await createWebhookIntake(deps, actor, ws, { name: "alerts", lineId: line.id });
  await addUsage(deps.store, ws, "api.calls", 5, new Date("2030-01-01T10:15:00Z"));
  await addUsage(deps.store, ws, "runs.succeeded", 2, new Date("2030-01-01T11:00:00Z"));

  // Finished runs, by a runner on the SQLite file.
  const runner = startRunner(deps, runnerHooks(deps), { pollMs: 20, maintenance: false });
  const finished: string[] = [];
  for (const n of [1, 2, 3]) finished.push((await startRun(deps, actor, { workspaceId: ws, automationId: a.id, payload: { n } })).id);
  for (const id of finished) expect(await waitForRun(deps, id)).toBe("succeeded");
  await runner.stop();

  // Work in flight when the installation stops: one run queued, one whose step a runner had claimed.
  const leased = (await startRun(deps, actor, { workspaceId: ws, automationId: a.id, payload: { n: 4 } })).id;
  const claimed: StepJob[] = [];
  const consumer = deps.queue.consumer({ owner: "old-worker", leaseMs: 600_000, pollMs: 10, runs: 1 });
  consumer.start(
    (jobs) => claimed.push(...jobs),
    () => 1 - claimed.length,
  );
  await waitFor(() => claimed.length === 1, 5000, "a claimed step");
  consumer.drain();
  const queued = (await startRun(deps, actor, { workspaceId: ws, automationId: a.id, payload: { n: 5 } })).id;

  ids = { automation: a.id, connection: con.id, task: task.id, intake: intake.id, intakeSecret: intake.secret, finished, queued, leased };
  before = await readAll(deps);
  await deps.queue.close();
  await storage.store.close();
  target = await servers.freshDatabase();
}, 120_000);

afterAll(async () => {
  await servers?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** `npx conveyor migrate-to-postgres …` as a process, configured like the SQLite installation. */
function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: file, CONVEYOR_DATA_DIR: dir, LOG_LEVEL: "silent" };
  for (const k of ["CONVEYOR_SECRET_KEY", "NEXTAUTH_SECRET", "AUTH_SECRET", "REDIS_URL"]) delete env[k];
  const child = spawn(process.execPath, ["bin/conveyor.mjs", "migrate-to-postgres", ...args], { cwd: process.cwd(), env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code: code ?? 1, stdout, stderr })));
}

const row = (out: string, table: string) =>
  out
    .split("\n")
    .find((l) => l.startsWith(`${table} `))
    ?.trim()
    .split(/\s+/);

describe("npx conveyor migrate-to-postgres", () => {
  it("a dry run reports the counts and writes nothing", async () => {
    const r = await cli(["--to", target, "--dry-run"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Dry run: ${file} → `);
    expect(row(r.stdout, "runs")).toEqual(["runs", "5", "-"]);
    expect(r.stdout).toMatch(/1 step job\(s\) in flight would be reset to queued; 2 run\(s\) would get an outbox row/);
    expect(r.stdout).toContain("Nothing was written.");
    expect(await tableCounts(target)).toEqual({});
  }, 60_000);

  it("copies every table, verifies it, and prints the next steps without printing a secret", async () => {
    const r = await cli(["--to", target]);
    expect(r.code, r.stderr).toBe(0);
    const counts = await tableCounts(target);
    for (const t of [
      "organizations",
      "users",
      "memberships",
      "workspaces",
      "lines",
      "automations",
      "automation_versions",
      "connections",
      "events",
      "runs",
      "run_steps",
      "tasks",
      "task_activity",
      "intakes",
      "usage_counters",
      "audit_log",
    ]) {
      expect(counts[t], t).toBeGreaterThan(0);
      expect(row(r.stdout, t), t).toEqual([t, String(counts[t]), String(counts[t]), "ok"]);
    }
    expect(counts.runs).toBe(5);
    expect(counts.automation_versions).toBe(2);
    expect(row(r.stdout, "jobs")?.slice(0, 4)).toEqual(["jobs", "2", "2", "ok"]);
    expect(r.stdout).toContain("1 lease(s) reset to queued");
    expect(row(r.stdout, "outbox")?.slice(0, 4)).toEqual(["outbox", "0", "2", "ok"]);
    expect(r.stdout).toMatch(/row counts and key digests match/);
    expect(r.stdout).toContain(`CONVEYOR_SECRET_KEY="$(cat ${path.join(dir, "secret.key")})" (checked: it decrypts the copied values)`);
    expect(r.stdout).toContain(`NEXTAUTH_SECRET="$(cat ${path.join(dir, "auth.secret")})"`);
    expect(r.stdout).toContain("2 run(s) with queued work are published to Redis on first start");
    const all = r.stdout + r.stderr;
    for (const secret of [key.toString("base64"), key.toString("hex"), "s3cret-pw", "tok-very-secret"]) expect(all).not.toContain(secret);
  }, 60_000);

  it("reads the same data back through the services on PostgreSQL, decrypting with the same key", async () => {
    const storage = await openStorage(target, { pg: { max: 3 } });
    const deps = await depsFromStorage(storage, rest(), { url: servers.redisUrl, prefix: `mtp${Date.now().toString(36)}` });
    try {
      const after = await readAll(deps);
      const { leased, ...same } = after;
      const { leased: leasedBefore, ...sameBefore } = before;
      expect(same).toEqual(sameBefore);
      expect(after.connectionConfig).toMatchObject({ apiAuth: { type: "bearer", token: "tok-very-secret" }, webhookSecret: "whs-also-secret" });
      expect(after.tasks.data[0]).toMatchObject({ title: "Disk full on db-1", data: { host: "db-1", z: 1, a: 2 } });
      expect(after.versions.map((v) => v.name).sort()).toEqual(["echo v2", expect.stringMatching(/^test /)]);
      const intakeRow = await deps.store.intakes.get(ws, ids.intake);
      expect(deps.box.decrypt(intakeRow!.secretEnc!)).toBe(ids.intakeSecret);
      // The step a runner of the SQLite installation had claimed is queued again, and nothing else changed.
      const running = leasedBefore.steps.find((s) => s.status === "running")!;
      expect(leased).toEqual({ ...leasedBefore, steps: leasedBefore.steps.map((s) => (s === running ? { ...s, status: "queued" } : s)) });
    } finally {
      await deps.queue.close();
      await storage.store.close();
    }
  }, 60_000);

  it("finishes the work that was in flight: outbox rows for BullMQ, the interrupted step counted as a stop", async () => {
    const storage = await openStorage(target, { pg: { max: 5 } });
    const deps = await depsFromStorage(storage, rest(), { url: servers.redisUrl, prefix: `mtp${Date.now().toString(36)}` });
    const sql = async <T>(q: string, ...p: unknown[]) => (await (storage.backend as import("@/db/pg/backend").PgBackend).pool.query(q, p)).rows as T[];
    try {
      expect((await sql<{ run_id: string }>("select run_id from outbox order by run_id")).map((r) => r.run_id)).toEqual([ids.leased, ids.queued].sort());
      const jobs = await sql<{ run_id: string; status: string; lease_owner: string | null; payload: unknown }>(
        "select run_id, status, lease_owner, payload from jobs",
      );
      expect(jobs.map((j) => [j.status, j.lease_owner])).toEqual([
        ["queued", null],
        ["queued", null],
      ]);
      expect(jsonCol<{ stops?: number }>(jobs.find((j) => j.run_id === ids.leased)!.payload).stops).toBe(1);
      expect(jsonCol<{ stops?: number }>(jobs.find((j) => j.run_id === ids.queued)!.payload).stops).toBeUndefined();

      const runner = startRunner(deps, runnerHooks(deps), { pollMs: 20, maintenance: false });
      try {
        await waitFor(
          async () => {
            await deps.queue.sweepNow();
            const s = await Promise.all([ids.leased, ids.queued].map(async (id) => (await deps.store.runs.get(id))?.status));
            return s.every((x) => x === "succeeded");
          },
          20_000,
          "the runs in flight to finish on PostgreSQL",
        );
      } finally {
        await runner.stop();
      }
      const out = await getRunOrThrow(deps, actor, ws, ids.queued);
      expect(out.steps.find((s) => s.name === "echo")?.output).toMatchObject({ data: { value: 5 } });
    } finally {
      await deps.queue.close();
      await storage.store.close();
    }
  }, 60_000);

  it("refuses a second run onto the now non-empty database, with a clear message, and changes nothing", async () => {
    const countsBefore = await tableCounts(target);
    const r = await cli(["--to", target]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /conveyor: The target database postgres:\/\/conveyor:\*\*\*@.* already holds Conveyor data \(.*runs: 5 row\(s\).*\)\. migrate-to-postgres only copies into an empty database, so nothing was changed/,
    );
    expect(await tableCounts(target)).toEqual(countsBefore);
  }, 60_000);

  it("exits non-zero and marks the table when the target does not end up with the same rows", async () => {
    const url = await servers.freshDatabase();
    const { applyMigrations } = await import("@/db/migrate-to-postgres/target");
    const { defaultPgMigrationsFolder } = await import("@/db/pg/backend");
    await applyMigrations(url, defaultPgMigrationsFolder());
    const storage = await openStorage(url, { migrate: false, pg: { max: 1 } });
    const pool = (storage.backend as import("@/db/pg/backend").PgBackend).pool;
    await pool.query("create function skip_steps() returns trigger language plpgsql as $$ begin return null; end $$");
    await pool.query("create trigger skip_steps before insert on run_steps for each row execute function skip_steps()");
    await storage.store.close();

    const lines: string[] = [];
    const out = { log: (s: string) => lines.push(s), err: (s: string) => lines.push(s) };
    const code = await migrateToPostgresCommand({ from: file, to: url }, { scaleOut: false, databasePath: file, dataDir: dir }, out);
    expect(code).toBe(1);
    const text = lines.join("\n");
    expect(row(text, "run_steps")).toEqual(["run_steps", expect.stringMatching(/^[1-9]/), "0", "MISMATCH"]);
    expect(row(text, "runs")).toEqual(["runs", "5", "5", "ok"]);
    expect(text).toContain("it was rolled back, no row was committed");
    expect(Object.values(await tableCounts(url)).every((n) => n === 0)).toBe(true);
  }, 60_000);
});
