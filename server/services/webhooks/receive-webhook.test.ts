import { runnerHooks } from "../../runner-hooks";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { jsonCol } from "@/db/testing";
import { openStorage } from "@/db/open";
import { createTestDeps } from "../../testing";
import { depsFromStorage } from "../../deps";
import { handleHookRequest } from "../../webhooks/lean-listener";
import { createAutomation, patchAutomation, replaceAutomation } from "../automations";
import { startRunner, type Runner } from "../../runner/runner-loop";
import { registerStubs } from "../../runner/testing/stub-integration";
import { seedWorkspace } from "../../runner/testing/seed";
import { waitForRun } from "../../runner/testing/wait";
import { createHmac } from "node:crypto";
import { createWebhookIntake } from "../intakes-webhook/intakes";
import { getTriggerInfo } from "../editor/trigger-info";
import { flushRefusals } from "./refusals";

registerStubs();

let deps: Awaited<ReturnType<typeof createTestDeps>>;
let server: http.Server;
let base: string;
let runner: Runner;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;

beforeEach(async () => {
  deps = await createTestDeps();
  ws = await seedWorkspace(deps);
  server = http.createServer((req, res) => handleHookRequest(req, res, deps, { maxBytes: 4096 }));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  runner = startRunner(deps, runnerHooks(deps), { pollMs: 20, maintenance: false });
});
afterEach(async () => {
  await runner.stop();
  server.close();
  deps.close();
});

function webhookAutomation(config: Record<string, unknown> = {}) {
  return createAutomation(deps, ws.actor, ws.workspaceId, {
    name: "hook",
    enabled: true,
    graph: {
      nodes: [
        { id: "t", name: "hook", key: "core.webhook", config },
        { id: "a", name: "echo", key: "stub.echo", config: { value: "{{ $trigger.data.body.alerts[0].labels.alertname }}" } },
      ],
      edges: [{ from: "t", to: "a" }],
    },
  });
}

const post = (url: string, body: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
  fetch(url, { method: "POST", body, headers }).then(async (r) => ({ status: r.status, body: await r.json() }));

const count = async (table: string) => Number((await deps.sql<{ n: number }>(`select count(*) as n from ${table}`))[0]!.n);

describe("webhook ingress", () => {
  it("commits event + run before 202, and the run completes", async () => {
    const a = await webhookAutomation();
    const url = a.triggers[0]!.url!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:3999\/hooks\//);
    const res = await post(url.replace("http://127.0.0.1:3999", base), JSON.stringify({ alerts: [{ labels: { alertname: "DiskFull" } }] }));
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ accepted: 1, duplicates: 0 });
    const runId = res.body.runIds[0];
    await waitForRun(deps, runId);
    const [step] = await deps.sql<{ output: unknown }>("select output from run_steps where run_id = ?", runId);
    expect(jsonCol<{ data: unknown }>(step!.output).data).toEqual({ value: "DiskFull" });
  });

  it("recognises the same delivery twice (one run)", async () => {
    const a = await webhookAutomation();
    const url = a.triggers[0]!.url!.replace("http://127.0.0.1:3999", base);
    const h = { "content-type": "application/json", "idempotency-key": "delivery-1" };
    const one = await post(url, "{}", h);
    const two = await post(url, "{}", h);
    expect(one.body.accepted).toBe(1);
    expect(two.body).toMatchObject({ accepted: 0, duplicates: 1 });
    expect(await count("runs")).toBe(1);
  });

  it("answers 401 and stores nothing when verification fails; accepts bearer and HMAC", async () => {
    const bearer = await webhookAutomation({ authentication: "bearer", secret: "s3cret-token" });
    const url = bearer.triggers[0]!.url!.replace("http://127.0.0.1:3999", base);
    expect((await post(url, "{}", { "content-type": "application/json", authorization: "Bearer wrong-token" })).status).toBe(401);
    expect(await count("events")).toBe(0);
    expect((await post(url, "{}", { "content-type": "application/json", authorization: "Bearer s3cret-token" })).status).toBe(202);
    const hmac = await webhookAutomation({ authentication: "hmac", secret: "hmac-secret" });
    const hurl = hmac.triggers[0]!.url!.replace("http://127.0.0.1:3999", base);
    const body = JSON.stringify({ x: 1 });
    const sig = createHmac("sha256", "hmac-secret").update(body).digest("hex");
    expect((await post(hurl, body, { "content-type": "application/json", "x-signature-256": "sha256=" + sig })).status).toBe(202);
    expect((await post(hurl, body, { "content-type": "application/json", "x-signature-256": "sha256=" + "0".repeat(64) })).status).toBe(401);
  });

  it("keeps refused deliveries on the trigger for its panel: how many, and the latest with what the sender was told", async () => {
    const a = await webhookAutomation({ authentication: "bearer", secret: "s3cret-token" });
    const url = a.triggers[0]!.url!.replace("http://127.0.0.1:3999", base);
    const info = () => getTriggerInfo(deps, ws.actor, ws.workspaceId, a.id, "t");
    expect((await info()).refused).toEqual({ count: 0, last: null });
    // A sender with the wrong secret, again and again: counted, the writes throttled.
    const writes = vi.spyOn(deps.store.intakes, "noteRefused");
    for (let i = 0; i < 5; i++) expect((await post(url, "{}", { "content-type": "application/json", authorization: "Bearer wrong" })).status).toBe(401);
    expect((await post(url, "not json", { "content-type": "application/json", authorization: "Bearer s3cret-token" })).status).toBe(400);
    await flushRefusals(deps);
    const { refused } = await info();
    expect(refused.count).toBe(6);
    expect(writes).toHaveBeenCalledTimes(2); // the first at once, the other five together
    expect(refused.last).toMatchObject({ status: 400, code: "bad_request" });
    expect(refused.last!.detail).toContain("not valid JSON");
    // Accepted deliveries and unknown URLs leave it as it is.
    expect((await post(url, "{}", { "content-type": "application/json", authorization: "Bearer s3cret-token" })).status).toBe(202);
    expect((await post(url.replace(/[^/]+$/, "unknown-token"), "{}")).status).toBe(404);
    await flushRefusals(deps);
    expect((await info()).refused.count).toBe(6);
  });

  it("refuses bad JSON (400 with the parse error), wrong content type (415), too large (413), unknown or disabled (404)", async () => {
    const a = await webhookAutomation();
    const url = a.triggers[0]!.url!.replace("http://127.0.0.1:3999", base);
    const bad = await post(url, "{nope");
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/not valid JSON: .*JSON/);
    expect((await post(url, "a=b", { "content-type": "application/x-www-form-urlencoded" })).status).toBe(415);
    expect((await post(url, JSON.stringify({ pad: "x".repeat(5000) }))).status).toBe(413);
    expect((await post(`${base}/hooks/unknown-token`, "{}")).status).toBe(404);
    await patchAutomation(deps, ws.actor, ws.workspaceId, a.id, { enabled: false });
    expect((await post(url, "{}")).status).toBe(404);
    expect(await count("events")).toBe(0);
  });

  it("a disable committed by another process applies to the next delivery (the ingress caches intake heads)", async () => {
    // No runner: its store calls would refresh the cache anyway, hiding what this test checks.
    await runner.stop();
    const a = await webhookAutomation();
    const url = a.triggers[0]!.url!.replace("http://127.0.0.1:3999", base);
    expect((await post(url, "{}")).status).toBe(202);
    expect((await post(url, "{}")).status).toBe(202); // served from the cache
    // Another connection to the same database, as a CLI or a second server process would have.
    const other = await openStorage(deps.url, { migrate: false, pg: { max: 1 } });
    try {
      const otherDeps = await depsFromStorage(
        other,
        { box: deps.box, publicUrl: deps.publicUrl, log: deps.log, now: deps.now },
        { url: process.env.CONVEYOR_TEST_REDIS_URL },
      );
      await patchAutomation(otherDeps, ws.actor, ws.workspaceId, a.id, { enabled: false });
    } finally {
      await other.store.close();
    }
    // The SQLite engine looks for other connections' commits at most once a millisecond.
    await new Promise((r) => setTimeout(r, 2));
    expect((await post(url, "{}")).status).toBe(404);
    expect(await count("events")).toBe(2);
  });

  it("a new version or a rotated secret saved by another process applies to the next delivery", async () => {
    await runner.stop();
    const a = await webhookAutomation({ authentication: "bearer", secret: "first-secret" });
    const url = a.triggers[0]!.url!.replace("http://127.0.0.1:3999", base);
    const bearer = (s: string) => ({ "content-type": "application/json", authorization: `Bearer ${s}` });
    const first = await post(url, "{}", bearer("first-secret"));
    expect(first.status).toBe(202);
    expect((await post(url, "{}", bearer("first-secret"))).status).toBe(202); // the head is warm now
    const other = await openStorage(deps.url, { migrate: false, pg: { max: 1 } });
    try {
      const otherDeps = await depsFromStorage(
        other,
        { box: deps.box, publicUrl: deps.publicUrl, log: deps.log, now: deps.now },
        { url: process.env.CONVEYOR_TEST_REDIS_URL },
      );
      await replaceAutomation(otherDeps, ws.actor, ws.workspaceId, a.id, {
        name: "hook",
        enabled: true,
        graph: {
          nodes: [
            { id: "t", name: "hook", key: "core.webhook", config: { authentication: "bearer", secret: "second-secret" } },
            { id: "a", name: "echo", key: "stub.echo", config: { value: "v2" } },
          ],
          edges: [{ from: "t", to: "a" }],
        },
      });
    } finally {
      await other.store.close();
    }
    await new Promise((r) => setTimeout(r, 2));
    const old = await post(url, "{}", bearer("first-secret"));
    expect(old.status).toBe(401);
    const next = await post(url, "{}", bearer("second-secret"));
    expect(next.status).toBe(202);
    const versions = await deps.sql<{ id: string; version: number }>("select id, version from runs order by created_at, id");
    expect(versions).toHaveLength(3);
    expect(versions.find((r) => r.id === next.body.runIds[0])?.version).toBeGreaterThan(versions.find((r) => r.id === first.body.runIds[0])!.version);
  });

  it("a webhook intake turns an authenticated JSON POST into a task on its line (once per delivery id)", async () => {
    const line = (await deps.store.lines.list(ws.workspaceId, { limit: 1 }))[0]!;
    const intake = await createWebhookIntake(deps, ws.actor, ws.workspaceId, { name: "alerts", lineId: line.id });
    const url = intake.url!.replace("http://127.0.0.1:3999", base);
    const body = JSON.stringify({ title: "Disk full on db-1", data: { host: "db-1" } });
    expect((await post(url, body, { "content-type": "application/json", authorization: "Bearer wrong" })).status).toBe(401);
    const h = { "content-type": "application/json", authorization: `Bearer ${intake.secret}`, "idempotency-key": "d-1" };
    const one = await post(url, body, h);
    expect(one.status).toBe(202);
    expect(one.body.taskId).toMatch(/^tsk_/);
    const two = await post(url, body, h);
    expect(two.body).toMatchObject({ accepted: 0, duplicates: 1 });
    const tasks = await deps.sql<{ title: string; data: unknown }>("select title, data from tasks where intake_id = ?", intake.id);
    expect(tasks.map((t) => ({ ...t, data: jsonCol(t.data) }))).toEqual([{ title: "Disk full on db-1", data: { host: "db-1" } }]);
  });
});
