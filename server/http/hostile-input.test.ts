/** Each class of bad input from the hardening issue: answered 4xx problem+json, nothing stored. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHostileTarget, type HostileTarget } from "./testing/hostile-target";
import { MAX_JSON_DEPTH } from "./json-depth";
import { createLogger } from "../logger";

let t: HostileTarget;
beforeAll(async () => {
  t = await startHostileTarget();
}, 60_000);
afterAll(() => t?.close());

const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
const expectProblem = (res: { status: number; headers: Headers; body: any }, status: number, detail: RegExp) => {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  expect(res.body).toMatchObject({ status, type: expect.stringContaining("/problems/"), code: expect.any(String) });
  expect(res.body.detail).toMatch(detail);
};

async function hook(body: string, headers: Record<string, string> = {}) {
  const res = await fetch(t.hookUrl, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${t.hookSecret}`, ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text) };
}

describe("hostile input", () => {
  it("answers a broken percent-encoding in the path with 400 problem+json", async () => {
    const res = await t.api.get("/api/v1/factories/%ZZ", { key: t.seed.keys.viewer });
    expectProblem(res, 400, /broken percent-encoding in "%ZZ"/);
    expectProblem(await t.api.get(`/api/v1/factories/${t.seed.ws}/apps/%E0%A4%A`, { key: t.seed.keys.viewer }), 400, /percent-encoding/);
  });

  it("refuses JSON nested deeper than the limit on REST and on hooks, storing nothing", async () => {
    const before = await t.fingerprint();
    const rest = await t.api.post(`/api/v1/factories/${t.seed.ws}/orders`, {
      key: t.seed.keys.operator,
      raw: `{"title":"x","data":${deep(5000)}}`,
      headers: { "content-type": "application/json" },
    });
    expectProblem(rest, 400, new RegExp(`more than ${MAX_JSON_DEPTH} levels`));
    expectProblem(await hook(`{"data":${deep(5000)}}`), 400, /more than 64 levels/);
    // Just under the limit is fine.
    const ok = await t.api.post(`/api/v1/factories/${t.seed.ws}/orders`, {
      key: t.seed.keys.operator,
      body: { title: "deep enough", data: JSON.parse(deep(MAX_JSON_DEPTH - 1)) },
    });
    expect(ok.status).toBe(201);
    const after = await t.fingerprint();
    expect(after.tasks).not.toBe(before.tasks);
    expect({ ...after, tasks: "", task_activity: "", usage_counters: "" }).toEqual({ ...before, tasks: "", task_activity: "", usage_counters: "" });
  });

  it("answers an oversize webhook body 413 problem+json", async () => {
    expectProblem(await hook(JSON.stringify({ title: "x", data: "y".repeat(70 * 1024) })), 413, /over the limit of 65536 bytes/);
  });

  it("start-a-run is strict: unknown fields and non-object payloads are 422 with their paths", async () => {
    const url = `/api/v1/factories/${t.seed.ws}/apps/${t.appId}/runs`;
    const before = await t.fingerprint();
    const res = await t.api.post(url, { key: t.seed.keys.operator, body: { payload: 1, extra: true } });
    expectProblem(res, 422, /not valid/);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["extra", "payload"]);
    expect((await t.api.post(url, { key: t.seed.keys.operator, body: { payload: [1, 2] } })).status).toBe(422);
    expect(await t.fingerprint()).toEqual(before);
    expect((await t.api.post(url, { key: t.seed.keys.operator, body: { payload: { ok: true } } })).status).toBe(202);
  });

  it("refuses a forged or edited pagination cursor with 400", async () => {
    const forged = Buffer.from(JSON.stringify({ c: "2000-01-01", i: "zzz" })).toString("base64url");
    expectProblem(await t.api.get(`/api/v1/factories?cursor=${forged}`, { key: t.seed.keys.viewer }), 400, /cursor is not valid/);
    const page = await t.api.get("/api/v1/factories?limit=1", { key: t.seed.keys.viewer });
    const [payload, tag] = (page.body.nextCursor as string).split(".");
    const edited = Buffer.from(JSON.stringify({ c: "1970", i: "a" })).toString("base64url");
    expectProblem(await t.api.get(`/api/v1/factories?cursor=${edited}.${tag}`, { key: t.seed.keys.viewer }), 400, /cursor is not valid/);
    expect((await t.api.get(`/api/v1/factories?limit=1&cursor=${payload}.${tag}`, { key: t.seed.keys.viewer })).status).toBe(200);
  });

  it("validates intake deliveries against the intake's shape (422 with the field path), storing nothing", async () => {
    const before = await t.fingerprint();
    const titled = await hook('{"title":{"x":1}}');
    expectProblem(titled, 422, /does not match the intake's shape/);
    expect(titled.body.errors[0].path).toBe("title");
    const array = await hook("[1,2]");
    expectProblem(array, 422, /JSON object/);
    expect(array.body.errors[0]).toMatchObject({ path: "" });
    expect(await t.fingerprint()).toEqual(before);
    expect((await hook('{"title":"Disk full","data":{"host":"db1"}}')).status).toBe(202);
  });

  it("logs are JSON lines and a failed step's line carries run, node and reason but no secret", () => {
    const lines: string[] = [];
    const log = createLogger({ service: "conveyor" }, "info", (l) => lines.push(l));
    log.error("step failed", {
      runId: "run_1",
      nodeId: "n2",
      reason: "GET /api → 401: denied",
      authorization: "Bearer s3cr3t",
      headers: { cookie: "sid=abc" },
    });
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ level: "error", msg: "step failed", runId: "run_1", nodeId: "n2", reason: "GET /api → 401: denied" });
    expect(lines[0]).not.toContain("s3cr3t");
    expect(lines[0]).not.toContain("sid=abc");
  });
});
