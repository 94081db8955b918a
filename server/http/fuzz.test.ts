/**
 * Property-based fuzzing of both public doors (fast-check, a fresh seed every run; a failure prints
 * the seed and the shrunk request). Requests are derived from /api/v1/openapi.json and from the
 * webhook door's contract, then broken (testing/hostile-requests.ts). For every request:
 * - never a 5xx;
 * - every 4xx is application/problem+json with the same status, a code and a specific detail
 *   (field problems carry a path), and the REST client checks the status and body against the
 *   OpenAPI document;
 * - a refused request changes no stored row (fingerprint of every table before and after).
 * At least 2,000 requests per run (FUZZ_RUNS scales it).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHostileTarget, type HostileTarget } from "./testing/hostile-target";
import { credential, hostileBody, operationsOf, pathSegment, queryString, type DocOperation } from "./testing/hostile-requests";

const SCALE = Number(process.env.FUZZ_RUNS ?? 1);
/** Replays a failing run: FUZZ_SEED=<seed printed by fast-check>. */
const SEED = process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {};
const REST_RUNS = Math.round(1600 * SCALE);
const HOOK_RUNS = Math.round(500 * SCALE);

let t: HostileTarget;
let ops: DocOperation[];
let defs: Record<string, Record<string, unknown>>;
let validCursor: string | null;
let sent = 0;
/** The fingerprint after the previous request: nothing else writes (no runner), so it is the "before" of the next one. */
let last: Record<string, string> | null = null;
/** The previous request's "after" (nothing else writes: no runner); recomputed when a failed check left it unknown. */
async function beforeRequest(): Promise<Record<string, string>> {
  const b = last ?? (await t.fingerprint());
  last = null;
  return b;
}
async function afterRequest(): Promise<Record<string, string>> {
  last = await t.fingerprint();
  return last;
}

beforeAll(async () => {
  t = await startHostileTarget();
  const doc = (await t.api.get("/api/v1/openapi.json")).body;
  ops = operationsOf(doc);
  defs = doc.components?.schemas ?? {};
  validCursor = (await t.api.get("/api/v1/factories?limit=1", { key: t.seed.keys.viewer })).body.nextCursor;
}, 60_000);
afterAll(() => t?.close());

function checkProblem(status: number, contentType: string | null, body: any, what: string): void {
  expect(status, what).toBeLessThan(500);
  if (status < 400) return;
  expect(contentType, what).toBe("application/problem+json");
  expect(body, what).toMatchObject({
    status,
    type: expect.stringMatching(/\/problems\/[a-z_]+$/),
    code: expect.stringMatching(/^[a-z_]+$/),
    title: expect.any(String),
  });
  expect(typeof body.detail === "string" && body.detail.length >= 12, `${what}: detail "${body.detail}"`).toBe(true);
  expect(body.detail, what).not.toMatch(/Something went wrong|Internal server error|undefined|\[object Object\]/);
  if (status === 422)
    expect(Array.isArray(body.errors) && body.errors.every((e: any) => typeof e.path === "string" && e.message), `${what}: field problems`).toBe(true);
}

describe("fuzz", () => {
  it(`REST: ${REST_RUNS} hostile requests derived from the OpenAPI document`, { timeout: 240_000 }, async () => {
    const keys = {
      viewer: t.seed.keys.viewer,
      operator: t.seed.keys.operator,
      editor: t.seed.keys.editor,
      admin: t.seed.keys.admin,
      limitedAdmin: t.seed.keys.limitedAdmin,
    };
    const request = fc.constantFrom(...ops).chain((op) =>
      fc.record({
        op: fc.constant(op),
        segments: fc.tuple(
          ...op.params.map((p) =>
            pathSegment(
              p === "factoryId"
                ? [t.seed.ws, t.seed.other]
                : p === "appId"
                  ? [t.appId]
                  : p === "lineId"
                    ? [t.lineId]
                    : p === "version"
                      ? ["1"]
                      : ["zz_missing"],
            ),
          ),
        ),
        query: queryString(op.query, validCursor),
        body: op.method === "GET" ? fc.constant(null) : fc.option(hostileBody(op.body, defs as never), { nil: null, freq: 8 }),
        auth: credential(keys),
        idempotencyKey: fc.option(fc.constantFrom("", "k".repeat(300), "ok-key", "\u00e9"), { nil: undefined, freq: 4 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(request, async ({ op, segments, query, body, auth, idempotencyKey }) => {
        // Destructive operations with a real admin key would only test deletion; keep the fixtures.
        if (op.method === "DELETE" && auth.role && auth.role !== "viewer") segments = segments.map(() => "zz_missing") as typeof segments;
        let path = op.path;
        op.params.forEach((p, i) => (path = path.replace(`{${p}}`, String(segments[i]))));
        const url = `/api/v1${path}${query}`;
        const headers: Record<string, string> = {};
        if (auth.header !== null) headers.authorization = auth.header;
        if (body?.contentType) headers["content-type"] = body.contentType;
        if (idempotencyKey !== undefined && /^[\x20-\x7e]*$/.test(idempotencyKey)) headers["idempotency-key"] = idempotencyKey;
        const before = await beforeRequest();
        const res = await t.api.request(op.method, url, { headers, ...(body ? { raw: body.raw } : {}) });
        sent++;
        const what = `${op.method} ${url.slice(0, 200)} as ${auth.label} body ${body?.raw.slice(0, 120)} → ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`;
        const after = await afterRequest();
        checkProblem(res.status, res.headers.get("content-type"), res.body, what);
        if (res.status >= 400) expect(after, `${what}: stored rows changed`).toEqual(before);
      }),
      { numRuns: REST_RUNS, ...SEED },
    );
  });

  it(`webhooks: ${HOOK_RUNS} hostile deliveries to the lean listener`, { timeout: 240_000 }, async () => {
    const intakeToken = new URL(t.hookUrl).pathname.slice("/hooks/".length);
    const alertToken = new URL(t.alertHookUrl).pathname.slice("/hooks/".length);
    const alertmanager = {
      type: "object",
      required: ["version", "status", "alerts"],
      properties: {
        version: { const: "4" },
        status: { enum: ["firing", "resolved"] },
        receiver: { type: "string" },
        groupLabels: { type: "object" },
        alerts: { type: "array" },
        externalURL: { type: "string" },
      },
    };
    const intakeShape = { type: "object", properties: { title: { type: "string" }, description: { type: "string" }, data: {} } };
    const delivery = fc
      .oneof(
        fc.record({
          token: fc.constant(intakeToken),
          body: hostileBody(intakeShape, {}),
          auth: fc.constantFrom(`Bearer ${t.hookSecret}`, `Bearer ${t.hookSecret}`, "Bearer wrong", null, "sha256=00"),
        }),
        fc.record({
          token: fc.constant(alertToken),
          body: hostileBody(alertmanager, {}),
          auth: fc.constantFrom(`Bearer ${t.alertSecret}`, `Bearer ${t.alertSecret}`, "Bearer wrong", null),
        }),
        fc.record({ token: pathSegment(["nope", intakeToken + "x"]), body: hostileBody(intakeShape, {}), auth: fc.constant(null) }),
      )
      .chain((d) =>
        fc.record({
          token: fc.constant(d.token),
          body: fc.constant(d.body),
          auth: fc.constant(d.auth),
          method: fc.constantFrom("POST", "POST", "POST", "PUT", "GET", "DELETE", "PATCH"),
          query: fc.constantFrom("", "?a=1", "?%ZZ=1", "?x=%E0%A4%A"),
        }),
      );
    await fc.assert(
      fc.asyncProperty(delivery, async ({ token: tk, method, auth, body, query }) => {
        const headers: Record<string, string> = {};
        if (auth?.startsWith("Bearer")) headers.authorization = auth;
        else if (auth) headers["x-conveyor-signature"] = auth;
        if (body.contentType) headers["content-type"] = body.contentType;
        const before = await beforeRequest();
        const res = await fetch(`${t.hooksBase}/hooks/${tk}${query}`, { method, headers, ...(method === "GET" ? {} : { body: body.raw }) });
        const text = await res.text();
        sent++;
        const ct = res.headers.get("content-type");
        const parsed = ct?.includes("json") && text ? JSON.parse(text) : text;
        const what = `${method} /hooks/${tk.slice(0, 40)}${query} auth ${auth} ct ${body.contentType} body ${body.raw.slice(0, 120)} → ${res.status} ${text.slice(0, 300)}`;
        const after = await afterRequest();
        checkProblem(res.status, ct, parsed, what);
        if (res.status >= 400) expect(after, `${what}: stored rows changed`).toEqual(before);
      }),
      { numRuns: HOOK_RUNS, ...SEED },
    );
  });

  it("sent at least 2,000 generated requests", () => {
    expect(sent).toBeGreaterThanOrEqual(Math.round(2000 * Math.min(1, SCALE)));
  });
});
