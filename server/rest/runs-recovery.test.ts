/**
 * Run recovery through /api/v1 (issue #13), in process (with a runner started here) and over HTTP
 * against the built app (its own runner): retry with `{ "version": "original" | "current" }` after a fix,
 * and `POST …/apps/{appId}/test-runs` with pinned data. Responses are checked against the OpenAPI document.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDeps } from "../testing";
import { runnerHooks } from "../runner-hooks";
import { startRunner, type Runner } from "../runner/runner-loop";
import { flushUsage } from "../usage-counters";
import { OVER_HTTP, startRestTarget, type RestTarget } from "./testing/target";
import type { RestClient } from "./testing/rest-client";
import { seedRest, type Seed } from "./testing/seed";

let target: RestTarget;
let deps: TestDeps;
let api: RestClient;
let s: Seed;
let runner: Runner | undefined;
let upstream: http.Server;
let base = "";
const hits = new Map<string, number>();

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    const p = new URL(req.url!, "http://x").pathname;
    hits.set(p, (hits.get(p) ?? 0) + 1);
    res.writeHead(p === "/bad" ? 400 : 200, { "content-type": "application/json" });
    res.end(JSON.stringify(p === "/bad" ? { errorMessages: ["project NOPE does not exist"] } : { path: p, n: hits.get(p) }));
  });
  await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  target = await startRestTarget();
  ({ deps, api } = target);
  s = await seedRest(deps);
  if (!OVER_HTTP) runner = startRunner(deps, runnerHooks(deps), { pollMs: 20, maintenance: false });
}, 90_000);
afterAll(async () => {
  await runner?.stop();
  await target?.close();
  await new Promise((r) => upstream.close(r));
});

const doc = (checkPath: string, pinned?: unknown) => ({
  name: "Silence then issue",
  enabled: true,
  graph: {
    nodes: [
      { id: "n1", name: "start", key: "core.manual", config: {} },
      { id: "n2", name: "silence", key: "core.http", config: { method: "GET", url: `${base}/silence` }, ...(pinned ? { pinned } : {}) },
      {
        id: "n3",
        name: "issue",
        key: "core.http",
        config: { method: "GET", url: `${base}${checkPath}`, query: { silence: "{{ $steps.silence.data.body.path }}" } },
      },
    ],
    edges: [
      { from: "n1", to: "n2" },
      { from: "n2", to: "n3" },
    ],
  },
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function settle(url: string): Promise<{ status: number; body: Record<string, any> }> {
  const end = Date.now() + 20_000;
  for (;;) {
    const r = await api.get(url, { key: s.keys.viewer });
    if (["succeeded", "failed", "cancelled"].includes(r.body.status) || Date.now() > end) return r;
    await new Promise((res) => setTimeout(res, 100));
  }
}

describe("run recovery over REST", () => {
  it("retries after a fix: the original version fails the same way, the current version reuses the silence and creates the issue", async () => {
    const apps = `/api/v1/factories/${s.ws}/apps`;
    const app = (await api.post(apps, { key: s.keys.editor, body: doc("/bad") })).body;
    const runs = `${apps}/${app.id}/runs`;
    const first = (await api.post(runs, { key: s.keys.operator, body: {} })).body;
    expect((await settle(`${runs}/${first.id}`)).body).toMatchObject({ status: "failed", version: 1, mode: "production", retryOf: null });
    expect(hits.get("/silence")).toBe(1);
    expect((await api.put(`${apps}/${app.id}`, { key: s.keys.editor, body: doc("/issue") })).body.version).toBe(2);

    expect((await api.post(`${runs}/${first.id}/retry`, { key: s.keys.operator, body: { version: "latest" } })).status).toBe(422);
    // No body: today's behaviour, the same run on its own version.
    const same = await api.post(`${runs}/${first.id}/retry`, { key: s.keys.operator });
    expect(same.status).toBe(202);
    expect(same.body).toMatchObject({ id: first.id, version: 1, trigger: first.trigger });
    expect(same.body.trigger.name).toBeTruthy();
    expect((await settle(`${runs}/${first.id}`)).body.status).toBe("failed");

    const next = await api.post(`${runs}/${first.id}/retry`, { key: s.keys.operator, body: { version: "current" } });
    expect(next.status).toBe(202);
    expect(next.body).toMatchObject({ version: 2, retryOf: first.id, mode: "production" });
    const done = (await settle(`${runs}/${next.body.id}`)).body;
    expect(done.status).toBe("succeeded");
    expect(done.steps.map((st: { name: string; origin?: { kind: string } | null }) => [st.name, st.origin?.kind ?? null])).toEqual([
      ["start", null],
      ["silence", "run"],
      ["issue", null],
    ]);
    expect(done.steps[2].output.data.body).toMatchObject({ path: "/issue" });
    expect(done.timing.workMs).toBeGreaterThanOrEqual(0);
    // Both retries were by hand (the 400 is not retried automatically): nothing waited between retries;
    // the time from the failed run's end to this retry is reported apart.
    expect(done.timing.retryWaitMs).toBe(0);
    const failedRun = (await api.get(`${runs}/${first.id}`, { key: s.keys.viewer })).body;
    expect(done.timing.manualRetryDelayMs).toBe(Date.parse(done.createdAt) - Date.parse(failedRun.finishedAt));
    expect(done.timing.manualRetryDelayMs).toBeGreaterThan(0);
    // The same-run retry: the attempt it followed is marked, and its wait is not between retries either.
    const issue = failedRun.steps.find((st: { name: string }) => st.name === "issue");
    expect(issue.attempts.map((x: { manualRetryAt?: string }) => typeof x.manualRetryAt)).toEqual(["string", "undefined"]);
    expect(failedRun.timing).toMatchObject({ retryWaitMs: 0, manualRetryDelayMs: expect.any(Number) });
    expect(failedRun.timing.manualRetryDelayMs).toBeGreaterThan(0);
    expect(hits.get("/silence")).toBe(1); // one silence, not two
    expect((await api.get(`${runs}/${first.id}`, { key: s.keys.viewer })).body).toMatchObject({ status: "failed", retriedBy: next.body.id });
    const again = await api.post(`${runs}/${first.id}/retry`, { key: s.keys.operator, body: { version: "current" } });
    expect(again.status).toBe(409);
    expect(again.headers.get("content-type")).toContain("application/problem+json");
    expect(again.body.detail).toContain(next.body.id);
    expect((await api.post(`${runs}/${first.id}/retry`, { key: s.keys.viewer, body: { version: "current" } })).status).toBe(403);
    const listed = (await api.get(`${runs}?limit=5`, { key: s.keys.viewer })).body.data;
    expect(listed.find((r: { id: string }) => r.id === next.body.id)).toMatchObject({ retryOf: first.id, workMs: expect.any(Number) });

    // Usage: one run with two retries (the served app flushes its counters every second; here, flush them).
    if (!OVER_HTTP) await flushUsage(deps.store);
    const end = Date.now() + 10_000;
    let usage = await api.get(`/api/v1/factories/${s.ws}/usage?granularity=hour`, { key: s.keys.viewer });
    // Counters are flushed about once a second: wait until the last of them (the retry's success) is in.
    while ((usage.body.totals.retries < 2 || !usage.body.totals.runs.succeeded) && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 200));
      usage = await api.get(`/api/v1/factories/${s.ws}/usage?granularity=hour`, { key: s.keys.viewer });
    }
    expect(usage.body.totals).toMatchObject({ runs: { succeeded: 1 }, retries: 2, retryWaitMs: 0 });
  });

  it("tests one step with pinned data: the step calls its upstream, the pinned one is not called", async () => {
    const apps = `/api/v1/factories/${s.ws}/apps`;
    const pinned = {
      output: { type: "core.http.response", timestamp: "2030-01-01T00:00:00.000Z", data: { status: 200, headers: {}, body: { path: "/pinned-silence" } } },
    };
    const app = (await api.post(apps, { key: s.keys.editor, body: doc("/issue", pinned) })).body;
    expect((await api.get(`${apps}/${app.id}`, { key: s.keys.viewer })).body.graph.nodes[1].pinned).toEqual(pinned);
    const before = { silence: hits.get("/silence") ?? 0, issue: hits.get("/issue") ?? 0 };
    const tests = `${apps}/${app.id}/test-runs`;
    expect((await api.post(tests, { key: s.keys.operator, body: { nodeId: "n3", scope: "sideways" } })).status).toBe(422);
    expect((await api.post(tests, { key: s.keys.operator, body: { nodeId: "n1", scope: "step" } })).status).toBe(422);
    // An unknown run in the body names the field (a 404 read as "no such automation").
    const noRun = await api.post(tests, { key: s.keys.operator, body: { nodeId: "n3", source: "run", runId: "run_nope" } });
    expect(noRun.status).toBe(422);
    expect(noRun.body.errors).toEqual([{ path: "runId", message: "Not a run of this automation" }]);
    const r = await api.post(tests, { key: s.keys.operator, body: { nodeId: "n3" } });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ mode: "test", test: { nodeId: "n3", single: true }, dataFrom: "an empty manual event and pinned data" });
    const done = (await settle(`${apps}/${app.id}/runs/${r.body.id}`)).body;
    expect(done.status).toBe("succeeded");
    expect(done.steps.map((st: { name: string; origin?: { kind: string } | null }) => [st.name, st.origin?.kind ?? null])).toEqual([
      ["start", null],
      ["silence", "pinned"],
      ["issue", null],
    ]);
    expect(done.steps[2].input.query).toEqual({ silence: "/pinned-silence" });
    expect({ silence: hits.get("/silence") ?? 0, issue: hits.get("/issue") ?? 0 }).toEqual({ silence: before.silence, issue: before.issue + 1 });
    expect((await api.post(tests, { key: s.keys.viewer, body: { nodeId: "n3" } })).status).toBe(403);
  });
});
