/** The response check every REST test runs (rest-client.ts): it must refuse what the document does not allow. */
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../openapi";
import { createConformanceCheck, type OpenApiDoc } from "./openapi-conformance";

const check = createConformanceCheck(JSON.parse(JSON.stringify(buildOpenApiDocument())) as OpenApiDoc);
const rate = { "ratelimit-limit": "1200", "ratelimit-remaining": "1199", "ratelimit-reset": "60", "ratelimit-policy": "1200;w=60" };
const ok = (extra: Record<string, string> = {}) => new Headers({ "content-type": "application/json", "x-request-id": "req_1", ...rate, ...extra });
const problemHeaders = (extra: Record<string, string> = {}) => new Headers({ "content-type": "application/problem+json", "x-request-id": "req_1", ...extra });
const problem = (status: number, code: string) => ({ type: `https://conveyor.dev/problems/${code}`, title: code, status, detail: "d", code });
const page = { data: [], nextCursor: null };

describe("OpenAPI conformance check", () => {
  it("accepts a documented answer with its headers", () => {
    expect(check("GET", "/api/v1/factories", 200, ok(), page)).toBeNull();
    expect(check("GET", "/api/v1/factories/ws_1", 404, problemHeaders(rate), problem(404, "not_found"))).toBeNull();
    expect(check("GET", "/api/v1/factories", 401, problemHeaders({ "www-authenticate": "Bearer" }), problem(401, "unauthorized"))).toBeNull();
  });

  it("refuses an undocumented status", () => {
    expect(check("GET", "/api/v1/factories", 500, problemHeaders(), problem(500, "internal"))).toMatch(/status 500 is not documented/);
  });

  it("refuses a problem sent as application/json, and an answer sent as problem+json", () => {
    expect(check("GET", "/api/v1/factories/ws_1", 404, new Headers({ "content-type": "application/json", "x-request-id": "r" }), problem(404, "not_found"))).toMatch(
      /Content-Type is application\/json, the document says application\/problem\+json/,
    );
    expect(check("GET", "/api/v1/factories", 200, ok({ "content-type": "application/problem+json" }), page)).toMatch(/Content-Type/);
  });

  it("refuses a missing required header: RateLimit-* on an answer, Retry-After on a 429 or 503, WWW-Authenticate on a 401, ETag where documented", () => {
    const noRate = new Headers({ "content-type": "application/json", "x-request-id": "r" });
    expect(check("GET", "/api/v1/factories", 200, noRate, page)).toMatch(/required header RateLimit-Limit is missing/);
    expect(check("GET", "/api/v1/factories", 429, problemHeaders(rate), problem(429, "rate_limited"))).toMatch(/Retry-After is missing/);
    expect(check("GET", "/api/v1/factories", 503, problemHeaders(), problem(503, "unavailable"))).toMatch(/Retry-After is missing/);
    expect(check("GET", "/api/v1/factories", 401, problemHeaders(), problem(401, "unauthorized"))).toMatch(/WWW-Authenticate is missing/);
    const h = ok();
    h.delete("x-request-id");
    expect(check("GET", "/api/v1/factories", 200, h, page)).toMatch(/X-Request-Id is missing/);
    expect(check("GET", "/api/v1/factories/ws_1/apps/aut_1", 200, ok(), {})).toMatch(/ETag is missing/);
  });

  it("refuses a header value that does not match its schema", () => {
    expect(check("GET", "/api/v1/factories", 200, ok({ "ratelimit-remaining": "lots" }), page)).toMatch(/header RateLimit-Remaining/);
    expect(check("GET", "/api/v1/factories", 429, problemHeaders({ ...rate, "retry-after": "Wed, 21 Oct 2026 07:28:00 GMT" }), problem(429, "rate_limited"))).toMatch(
      /header Retry-After/,
    );
    expect(check("GET", "/api/v1/factories", 200, ok({ "ratelimit-policy": "1200 per minute" }), page)).toMatch(/header RateLimit-Policy/);
  });

  it("refuses a body that does not match the schema", () => {
    expect(check("GET", "/api/v1/factories", 200, ok(), { data: [] })).toMatch(/nextCursor/);
    expect(check("DELETE", "/api/v1/factories/ws_1", 204, ok(), { done: true })).toMatch(/should have no body/);
  });
});
