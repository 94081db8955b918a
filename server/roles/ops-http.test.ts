/**
 * The role listener in process, on the test backend (SQLite by default, PostgreSQL + Redis under
 * CONVEYOR_TEST_BACKEND=postgres): health, readiness and metrics, the lean `/hooks` listener, and
 * what a process answers once its database is gone.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runnerHooks } from "../runner-hooks";
import { startRunner, type Runner } from "../runner/runner-loop";
import { waitForRun } from "../runner/testing/wait";
import { createTestDeps, type TestDeps } from "../testing";
import { startRoleServer, type RoleServer } from "./ops-http";
import type { ProcessRole } from "./process-role";
import { get, postJson, sample } from "./testing/processes";
import { seedHookAutomation } from "./testing/seed-hook";

let deps: TestDeps | undefined;
let server: RoleServer | undefined;
let runner: Runner | undefined;
let closed = false;

afterEach(async () => {
  await server?.close();
  await runner?.stop().catch(() => undefined);
  if (!closed) await deps?.close();
  [deps, server, runner, closed] = [undefined, undefined, undefined, false];
});

async function start(role: ProcessRole, hooks = false) {
  deps = await createTestDeps();
  server = await startRoleServer({ deps, role: () => role, host: "127.0.0.1", port: 0, hooks: hooks ? { maxBytes: 4096, timeoutMs: 5000 } : undefined });
  return `http://127.0.0.1:${server.port}`;
}

describe("role listener", () => {
  it("an ingress serves deliveries, liveness, readiness and metrics on one port, and nothing else", async () => {
    const base = await start({ role: "ingress" }, true);
    const { hookPath } = await seedHookAutomation(deps!);
    const d = await postJson(base + hookPath, { ok: true });
    expect(d.status).toBe(202);

    const live = await get(`${base}/api/health`);
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({ status: "ok", database: "ok", migrations: { pending: 0 } });
    const ready = await get(`${base}/api/health/ready?verbose=1`);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: "ready", role: "ingress", checks: { database: "ok" } });
    expect((ready.body.checks as Record<string, string>).runner).toBeUndefined();

    const metrics = await get(`${base}/metrics`);
    expect(metrics.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(sample(metrics.text, 'conveyor_webhook_deliveries_total{result="accepted"}')).toBeGreaterThanOrEqual(1);
    expect(sample(metrics.text, 'conveyor_process_role{role="ingress"}')).toBe(1);
    expect(sample(metrics.text, "conveyor_database_up")).toBe(1);
    // The delivery's outbox row is deleted shortly after its run is published (by the next ingest or a follow-up delete).
    await expect.poll(async () => sample((await get(`${base}/metrics`)).text, "conveyor_outbox_rows"), { timeout: 5000, interval: 20 }).toBe(0);

    // A token no intake can have (PostgreSQL refuses NUL bytes) is unknown: 404, not a database error.
    const nul = await postJson(`${base}/hooks/%00`, { ok: true });
    expect(nul.status).toBe(404);
    expect(nul.body).toMatchObject({ code: "not_found" });

    const other = await get(`${base}/api/v1/factories`);
    expect(other.status).toBe(404);
    expect(other.headers.get("content-type")).toBe("application/problem+json");
    const post = await fetch(`${base}/api/health/ready`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });

  it("a worker's listener does not take deliveries", async () => {
    const base = await start({ role: "worker" });
    const { hookPath } = await seedHookAutomation(deps!);
    const d = await fetch(base + hookPath, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(d.status).toBe(404);
    expect(await deps!.sql("select id from runs")).toHaveLength(0);
  });

  it("readiness names a runner that cannot work, and the database once it is gone; deliveries then get 503 + Retry-After, never 202 or 500", async () => {
    deps = await createTestDeps();
    runner = startRunner(deps, runnerHooks(deps), { pollMs: 20, maintenance: false, leaseMs: 600 });
    const role: ProcessRole = { role: "worker", runner };
    server = await startRoleServer({ deps, role: () => role, host: "127.0.0.1", port: 0, hooks: { maxBytes: 4096, timeoutMs: 5000 } });
    const base = `http://127.0.0.1:${server.port}`;
    const { hookPath } = await seedHookAutomation(deps);
    const ok = await postJson(base + hookPath, { ok: true });
    expect(ok.status).toBe(202);
    expect(await waitForRun(deps, (ok.body.runIds as string[])[0]!)).toBe("succeeded");
    expect((await get(`${base}/api/health/ready`)).body).toMatchObject({ status: "ready", role: "worker", checks: { database: "ok", runner: "ok" } });

    await deps.store.close();
    closed = true;
    const ready = await get(`${base}/api/health/ready`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get("content-type")).toBe("application/problem+json");
    expect(ready.headers.get("retry-after")).toBe("5");
    expect(ready.body).toMatchObject({ status: 503, code: "unavailable", role: "worker" });
    expect(ready.body.down).toContain("database");
    expect(String(ready.body.detail)).toMatch(/database/);
    // The runner notices at its next lease renewal (every lease/3).
    await expect.poll(async () => (await get(`${base}/api/health/ready`)).body.down, { timeout: 10_000 }).toContain("runner");

    expect((await get(`${base}/api/health`)).status).toBe(503);
    const d = await postJson(base + hookPath, { ok: true });
    expect(d.status).toBe(503);
    expect(d.headers.get("retry-after")).toBe("5");
    expect(d.headers.get("content-type")).toBe("application/problem+json");
    expect(d.body).toMatchObject({ code: "unavailable", title: "Service unavailable" });
    expect(String(d.body.detail)).toMatch(/not stored/);
    // /metrics still answers: the database gauges are left out, and the database is reported down.
    const metrics = await get(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(sample(metrics.text, "conveyor_database_up")).toBe(0);
    expect(sample(metrics.text, 'conveyor_webhook_deliveries_total{result="unavailable"}')).toBeGreaterThanOrEqual(1);
  });
});
