/** The REST plumbing, called through exported handlers with a Request: auth, errors, limits, idempotency. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps } from "../testing";
import { setDeps } from "../deps";
import { setRestConfig } from "./rest-config";
import { createRestClient } from "./testing/rest-client";
import { seedRest, type Seed } from "./testing/seed";
import { createApiKey, revokeApiKey } from "../services/api-keys/api-keys";
import { flushApiUsage } from "./api-usage";
import Database from "better-sqlite3";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { isDatabaseUnavailable } from "@/db/unavailable";

let deps: Awaited<ReturnType<typeof createTestDeps>>;
let s: Seed;
const api = createRestClient({});

beforeAll(async () => {
  deps = await createTestDeps();
  setDeps(deps);
  s = await seedRest(deps);
});
afterAll(async () => deps.close());
beforeEach(async () => setRestConfig({}));

describe("authentication", () => {
  // RFC 6750 §3.1: no error code without credentials; invalid_request for a header that is not a Bearer token.
  const cases: Array<[string, () => string | null, string, string]> = [
    ["missing", () => null, "No API key", 'Bearer realm="conveyor"'],
    ["malformed", () => "garbage", "not `Bearer", 'Bearer realm="conveyor", error="invalid_request", error_description="malformed"'],
    ["unknown", () => "cvk_abcdefgh_" + "x".repeat(43), "not known", 'Bearer realm="conveyor", error="invalid_token", error_description="unknown"'],
  ];
  for (const [name, header, detail, challenge] of cases) {
    it(`answers 401 with WWW-Authenticate for a ${name} key`, async () => {
      const h = header();
      const res = await api.get("/api/v1/factories", { headers: h ? { authorization: h.startsWith("cvk_") ? `Bearer ${h}` : h } : {} });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe(challenge);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(res.body).toMatchObject({ status: 401, code: "unauthorized", type: "https://conveyor.dev/problems/unauthorized" });
      expect(res.body.detail).toContain(detail);
    });
  }
  it("answers 401 for revoked and expired keys, saying which", async () => {
    const { key, record } = await createApiKey(deps, s.owner, { name: "tmp", role: "viewer" });
    await revokeApiKey(deps, s.owner, record.id);
    expect((await api.get("/api/v1/factories", { key })).body.detail).toContain("revoked");
    const realNow = deps.now;
    const exp = await createApiKey(deps, s.owner, { name: "exp", role: "viewer", expiresAt: new Date(Date.now() + 60_000).toISOString() });
    deps.now = () => new Date(Date.now() + 120_000);
    const res = await api.get("/api/v1/factories", { key: exp.key });
    deps.now = realNow;
    expect(res.status).toBe(401);
    expect(res.body.detail).toContain("expired");
  });
});

describe("request handling", () => {
  it("echoes a request id and attaches rate-limit headers", async () => {
    const res = await api.get("/api/v1/factories", { key: s.keys.viewer, headers: { "x-request-id": "abc-123" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("abc-123");
    expect(Number(res.headers.get("ratelimit-limit"))).toBeGreaterThan(0);
    expect(res.headers.get("ratelimit-remaining")).toMatch(/^\d+$/);
  });

  it("rate-limits per key with 429, Retry-After and RateLimit-* headers", async () => {
    setRestConfig({ rateLimit: 3 });
    const { key } = await createApiKey(deps, s.owner, { name: "burst", role: "viewer" });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await api.get("/api/v1/factories", { key })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const res = await api.get("/api/v1/factories", { key });
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(res.headers.get("ratelimit-remaining")).toBe("0");
    expect(res.body.code).toBe("rate_limited");
    // Another key is not affected.
    expect((await api.get("/api/v1/factories", { key: s.keys.viewer })).status).toBe(200);
  });

  const bad: Array<{ name: string; raw?: string; body?: unknown; headers?: Record<string, string>; status: number; code: string; path?: string }> = [
    { name: "malformed JSON", raw: '{"name": ', headers: { "content-type": "application/json" }, status: 400, code: "bad_request" },
    {
      name: "a non-JSON content type",
      raw: "name=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      status: 415,
      code: "unsupported_media_type",
    },
    { name: "a wrong type", body: { name: 42 }, status: 422, code: "validation_failed", path: "name" },
    { name: "an unknown field", body: { name: "x", colour: "red" }, status: 422, code: "validation_failed", path: "colour" },
    { name: "an empty name", body: { name: "   " }, status: 422, code: "validation_failed", path: "name" },
    { name: "no body", status: 422, code: "validation_failed", path: "" },
    { name: "a JSON array", body: [1, 2], status: 422, code: "validation_failed" },
    // A JSON null is a body of the wrong type, not an absent body (which some operations allow).
    { name: "a JSON null", raw: "null", headers: { "content-type": "application/json" }, status: 422, code: "validation_failed", path: "" },
  ];
  for (const c of bad) {
    it(`rejects ${c.name} with ${c.status}`, async () => {
      const res = await api.post("/api/v1/factories", { key: s.keys.admin, body: c.body, raw: c.raw, headers: c.headers });
      expect(res.status).toBe(c.status);
      expect(res.body.code).toBe(c.code);
      if (c.path !== undefined) expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(c.path);
    });
  }

  it("lists every field problem at once", async () => {
    const res = await api.post(`/api/v1/factories/${s.ws}/orders`, { key: s.keys.operator, body: { title: 5, status: "done", description: [] } });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["description", "status", "title"]);
  });

  it("answers 413 over the body limit", async () => {
    setRestConfig({ maxBodyBytes: 2048 });
    const res = await api.post("/api/v1/factories", { key: s.keys.admin, body: { name: "x".repeat(5000) } });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe("payload_too_large");
  });

  it("keeps unicode intact", async () => {
    const name = "Ünïcødé 工場 🚀";
    const res = await api.post("/api/v1/factories", { key: s.keys.admin, body: { name } });
    expect(res.status).toBe(201);
    expect((await api.get(`/api/v1/factories/${res.body.id}`, { key: s.keys.admin })).body.name).toBe(name);
  });

  it("answers 405 with Allow for an unsupported method and a JSON 404 for unknown paths", async () => {
    const res = await api.put("/api/v1/factories", { key: s.keys.admin, body: {}, headers: { "x-request-id": "mine-405" } });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, POST");
    // Every response carries the caller's request id, these two as well.
    expect(res.headers.get("x-request-id")).toBe("mine-405");
    expect(res.body.requestId).toBe("mine-405");
    // OPTIONS names the methods the path has (Next's default listed all five, the 405s included).
    const options = await api.request("OPTIONS", "/api/v1/factories", {});
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, POST, HEAD, OPTIONS");
    expect((await api.request("OPTIONS", `/api/v1/factories/${s.ws}/orders/o_1/transitions`, {})).headers.get("allow")).toBe("POST, OPTIONS");
    const nf = await api.get("/api/v1/nothing/here", { key: s.keys.admin, headers: { "x-request-id": "mine-404" } });
    expect(nf.status).toBe(404);
    expect(nf.headers.get("content-type")).toBe("application/problem+json");
    expect(nf.body.requestId).toBe("mine-404");
  });

  it("rejects huge limits and bad cursors", async () => {
    expect((await api.get(`/api/v1/factories/${s.ws}/orders?limit=100000`, { key: s.keys.viewer })).body.errors[0].path).toBe("query.limit");
    expect((await api.get(`/api/v1/factories/${s.ws}/orders?limit=-1`, { key: s.keys.viewer })).status).toBe(422);
    // It said "expected number, received NaN".
    expect((await api.get(`/api/v1/factories/${s.ws}/orders?limit=ten`, { key: s.keys.viewer })).body.errors).toEqual([
      { path: "query.limit", message: "Invalid input: expected number, received text that is not a number" },
    ]);
    for (const cursor of ["%%%", "bm90LWpzb24", Buffer.from('{"c":1}').toString("base64url")]) {
      const res = await api.get(`/api/v1/factories/${s.ws}/orders?cursor=${cursor}`, { key: s.keys.viewer });
      expect(res.status).toBe(400);
      // A query parameter is named like the door's own query checks name it (query.limit above).
      expect(res.body.errors[0].path).toBe("query.cursor");
    }
    expect((await api.get(`/api/v1/factories/${s.ws}/orders?bogus=1`, { key: s.keys.viewer })).status).toBe(422);
    // An unencoded "+" of a UTC offset arrives as a space; the answer said only "Invalid ISO datetime".
    const plus = await api.get(`/api/v1/factories/${s.ws}/orders?createdFrom=2026-11-25T13:00:00+00:00`, { key: s.keys.viewer });
    expect(plus.body.errors).toEqual([{ path: "query.createdFrom", message: 'Invalid ISO datetime (a "+" in a URL query arrives as a space: send it as %2B)' }]);
    const encoded = await api.get(`/api/v1/factories/${s.ws}/orders?createdFrom=2026-11-25T13:00:00%2B00:00`, { key: s.keys.viewer });
    expect(encoded.status).toBe(200);
    // A parameter given twice said "expected number, received NaN".
    const twice = await api.get(`/api/v1/factories/${s.ws}/orders?limit=1&limit=2`, { key: s.keys.viewer });
    expect(twice.status).toBe(422);
    expect(twice.body.errors).toEqual([{ path: "query.limit", message: "Given 2 times; send it once" }]);
    // An operation without query parameters refuses one instead of ignoring it (nothing deleted here).
    const line = await api.post(`/api/v1/factories/${s.ws}/lines`, { key: s.keys.admin, body: { name: "Keep" } });
    const force = await api.delete(`/api/v1/factories/${s.ws}/lines/${line.body.id}?force=true`, { key: s.keys.admin });
    expect(force.status).toBe(422);
    expect(force.body.errors).toEqual([{ path: "query.force", message: "Unknown field: force" }]);
    expect((await api.get(`/api/v1/factories/${s.ws}/lines/${line.body.id}`, { key: s.keys.viewer })).status).toBe(200);
  });

  it("refuses a cursor of another list, workspace or task (it answered an empty last page: `nextCursor` null, as if the list had ended)", async () => {
    const ids: string[] = [];
    for (const title of ["c1", "c2", "c3"]) ids.push((await api.post(`/api/v1/factories/${s.ws}/orders`, { key: s.keys.operator, body: { title } })).body.id);
    const first = await api.get(`/api/v1/factories/${s.ws}/orders?limit=1`, { key: s.keys.viewer });
    const cursor = first.body.nextCursor as string;
    expect((await api.get(`/api/v1/factories/${s.ws}/orders?limit=1&cursor=${cursor}`, { key: s.keys.viewer })).body.data).toHaveLength(1);
    for (const url of [`/api/v1/factories/${s.ws}/lines?cursor=${cursor}`, `/api/v1/factories/${s.other}/orders?cursor=${cursor}`]) {
      const res = await api.get(url, { key: s.keys.viewer });
      expect(res.status, url).toBe(400);
      expect(res.body.errors).toEqual([{ path: "query.cursor", message: "Not a cursor of this list" }]);
      expect(res.body.detail).toMatch(/nextCursor` of this list's previous page/);
    }
    for (const body of ["one", "two"]) await api.post(`/api/v1/factories/${s.ws}/orders/${ids[0]}/comments`, { key: s.keys.operator, body: { body } });
    const timeline = await api.get(`/api/v1/factories/${s.ws}/orders/${ids[0]}/activity?limit=1`, { key: s.keys.viewer });
    const other = await api.get(`/api/v1/factories/${s.ws}/orders/${ids[1]}/activity?cursor=${timeline.body.nextCursor}`, { key: s.keys.viewer });
    expect(other.status).toBe(400);
    expect(other.body.errors[0].path).toBe("query.cursor");
  });

  it("refuses a body that is not UTF-8 (it was stored with U+FFFD in place of the bytes)", async () => {
    const res = await api.post("/api/v1/factories", {
      key: s.keys.admin,
      raw: Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain("not valid UTF-8");
    const bom = await api.post("/api/v1/factories", { key: s.keys.admin, raw: '\uFEFF{"name":"With BOM"}', headers: { "content-type": "application/json" } });
    expect(bom.status).toBe(201);
    expect(bom.body.name).toBe("With BOM");
  });

  it("counts API calls per workspace in usage", async () => {
    for (let i = 0; i < 3; i++) await api.get(`/api/v1/factories/${s.other}/lines`, { key: s.keys.viewer });
    await flushApiUsage();
    const res = await api.get(`/api/v1/factories/${s.other}/usage?granularity=hour`, { key: s.keys.viewer });
    expect(res.body.totals.apiCalls).toBeGreaterThanOrEqual(3);
    await api.get("/api/v1/factories/ws_nothere/lines", { key: s.keys.viewer });
    await flushApiUsage();
    expect(await deps.sql("select count(*) as n from usage_counters where workspace_id = 'ws_nothere'")).toEqual([{ n: 0 }]);
  });
});

describe("Idempotency-Key", () => {
  it("replays the first response, refuses a different body, keys are per API key", async () => {
    const headers = { "idempotency-key": "create-ws-1" };
    const first = await api.post("/api/v1/factories", { key: s.keys.admin, body: { name: "Idem" }, headers });
    const again = await api.post("/api/v1/factories", { key: s.keys.admin, body: { name: "Idem" }, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const spaced = await api.post("/api/v1/factories", {
      key: s.keys.admin,
      raw: '{ "name" :  "Idem" }',
      headers: { ...headers, "content-type": "application/json" },
    });
    expect(spaced.body.id).toBe(first.body.id);
    const other = await api.post("/api/v1/factories", { key: s.keys.admin, body: { name: "Different" }, headers });
    expect(other.status).toBe(422);
    expect(other.body.errors[0].path).toBe("Idempotency-Key");
    const list = await api.get("/api/v1/factories?limit=200", { key: s.keys.admin });
    expect(list.body.data.filter((w: { name: string }) => w.name === "Idem")).toHaveLength(1);
    const otherKey = await api.post("/api/v1/factories", { key: s.keys.limitedAdmin, body: { name: "Idem" }, headers });
    expect(otherKey.body.id).not.toBe(first.body.id);
  });
  it("answers 409 while another process runs the same key, and a failed request gives its key up", async () => {
    const { key, record } = await createApiKey(deps, s.owner, { name: "idem", role: "admin" });
    const now = Date.now();
    // Another web process has claimed this key and is still running the request.
    const claim = await deps.store.idempotency.claim(
      { apiKeyId: record.id, key: "busy-1", method: "POST", path: "/api/v1/factories", bodyHash: "x", now },
      { expiredBefore: now - 86_400_000, staleBefore: now - 300_000 },
    );
    expect(claim.kind).toBe("claimed");
    const busy = await api.post("/api/v1/factories", { key, body: { name: "Busy" }, headers: { "idempotency-key": "busy-1" } });
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe("conflict");
    // A request that fails inside its handler (422 from the service) does not keep the key.
    const headers = { "idempotency-key": "line-1" };
    const bad = await api.post(`/api/v1/factories/${s.ws}/lines`, { key, body: { name: "L", steps: [{ name: "a", appId: "aut_nope" }] }, headers });
    expect(bad.status).toBe(422);
    const good = await api.post(`/api/v1/factories/${s.ws}/lines`, { key, body: { name: "L" }, headers });
    expect(good.status).toBe(201);
    expect(good.headers.get("idempotent-replayed")).toBeNull();
    const replay = await api.post(`/api/v1/factories/${s.ws}/lines`, { key, body: { name: "L" }, headers });
    expect(replay.body.id).toBe(good.body.id);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });
  it("makes a retried comment or transition safe, and refuses the key where it would be ignored (a retried intake creation made a second intake)", async () => {
    const task = await api.post(`/api/v1/factories/${s.ws}/orders`, { key: s.keys.operator, body: { title: "Retried" } });
    const base = `/api/v1/factories/${s.ws}/orders/${task.body.id}`;
    const comment = { key: s.keys.operator, body: { body: "Checked the disk" }, headers: { "idempotency-key": "comment-1" } };
    const c1 = await api.post(`${base}/comments`, comment);
    const c2 = await api.post(`${base}/comments`, comment);
    expect([c1.status, c2.status]).toEqual([201, 201]);
    expect(c2.body.id).toBe(c1.body.id);
    expect(c2.headers.get("idempotent-replayed")).toBe("true");
    const close = { key: s.keys.operator, body: { action: "close", outcome: "rejected" }, headers: { "idempotency-key": "close-1" } };
    const t1 = await api.post(`${base}/transitions`, close);
    const t2 = await api.post(`${base}/transitions`, close);
    // Without the key's replay the retry was a 409 (already closed), though the close had worked.
    expect([t1.status, t2.status]).toEqual([200, 200]);
    const timeline = await api.get(`${base}/activity`, { key: s.keys.viewer });
    expect(timeline.body.data.filter((e: { kind: string }) => e.kind === "comment")).toHaveLength(1);
    expect(timeline.body.data.filter((e: { kind: string }) => e.kind === "closed")).toHaveLength(1);

    const lineId = (await api.get(`/api/v1/factories/${s.ws}/lines`, { key: s.keys.viewer })).body.data[0].id;
    const before = (await api.get(`/api/v1/factories/${s.ws}/intakes`, { key: s.keys.viewer })).body.data.length;
    const intake = await api.post(`/api/v1/factories/${s.ws}/intakes`, { key: s.keys.editor, body: { name: "Inbox", lineId }, headers: { "idempotency-key": "intake-1" } });
    expect(intake.status).toBe(422);
    expect(intake.body.errors).toEqual([{ path: "Idempotency-Key", message: "Not taken by this operation" }]);
    expect((await api.get(`/api/v1/factories/${s.ws}/intakes`, { key: s.keys.viewer })).body.data).toHaveLength(before);
    // Reads and idempotent methods keep ignoring it.
    expect((await api.get(`/api/v1/factories/${s.ws}/intakes`, { key: s.keys.viewer, headers: { "idempotency-key": "x" } })).status).toBe(200);
  });
  it("answers a creation with the Location to read it, also when replayed (a 201 had none)", async () => {
    const o = { key: s.keys.operator, body: { title: "Located" }, headers: { "idempotency-key": "located-1" } };
    const created = await api.post(`/api/v1/factories/${s.ws}/orders`, o);
    const replayed = await api.post(`/api/v1/factories/${s.ws}/orders`, o);
    expect(created.headers.get("location")).toBe(`/api/v1/factories/${s.ws}/orders/${created.body.id}`);
    expect(replayed.headers.get("location")).toBe(created.headers.get("location"));
    expect((await api.get(created.headers.get("location")!, { key: s.keys.viewer })).body.id).toBe(created.body.id);
  });
  it("rejects an unusable Idempotency-Key", async () => {
    const res = await api.post("/api/v1/factories", { key: s.keys.admin, body: { name: "x" }, headers: { "idempotency-key": "x".repeat(300) } });
    expect(res.status).toBe(400);
  });
});

/** The error a real query gets from drizzle + node-postgres when PostgreSQL refuses connections (nothing listens on the port). */
async function refusedPgQueryError(): Promise<unknown> {
  const port = await new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const p = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
  const pool = new pg.Pool({ host: "127.0.0.1", port, user: "x", database: "x", connectionTimeoutMillis: 2000 });
  try {
    await drizzle(pool).execute(sql`select 1`);
  } catch (e) {
    return e;
  } finally {
    await pool.end();
  }
  throw new Error("a query reached a closed port");
}

/** The error better-sqlite3 raises when another connection holds the write lock past the busy timeout. */
function busySqliteError(): unknown {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-busy-")), "busy.db");
  const holder = new Database(file);
  const other = new Database(file, { timeout: 0 });
  try {
    holder.exec("create table t (x); begin exclusive");
    other.prepare("insert into t values (1)").run();
  } catch (e) {
    return e;
  } finally {
    other.close();
    holder.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
  throw new Error("the write was not refused");
}

// In process only: the stub below replaces a store method of this process, not of a server over HTTP.
describe.skipIf(!!process.env.CONVEYOR_REST_URL)("database outage", () => {
  for (const [name, make] of [
    ["PostgreSQL refuses connections", refusedPgQueryError],
    ["SQLite stays locked", busySqliteError],
  ] as const) {
    it(`answers 503 with Retry-After, not 500, when ${name}`, async () => {
      const error = await make();
      const apiKeys = deps.store.apiKeys;
      const original = apiKeys.findByHash;
      apiKeys.findByHash = () => Promise.reject(error);
      try {
        const res = await api.get("/api/v1/factories", { key: s.keys.viewer });
        expect(res.status).toBe(503);
        expect(res.headers.get("retry-after")).toBe("5");
        expect(res.headers.get("content-type")).toBe("application/problem+json");
        expect(res.body).toMatchObject({ code: "unavailable", detail: "The database did not answer; retry the request later." });
      } finally {
        apiKeys.findByHash = original;
      }
    });
  }
  it("keeps other errors, and an upstream that cannot be reached, out of it (500 as before)", () => {
    expect(isDatabaseUnavailable(new Error("a bug"))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) }))).toBe(
      false,
    );
  });
});
