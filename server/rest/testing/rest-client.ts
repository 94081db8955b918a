/**
 * Test client for /api/v1. Dispatches in process to the real route modules (app/api/v1/**) with the
 * deps given to `setDeps`, or over HTTP when `CONVEYOR_REST_URL` is set (the built app). Every
 * response is checked against the served OpenAPI document (openapi-conformance.ts): documented status,
 * Content-Type, required and typed headers, and a body that matches its schema.
 */
import path from "node:path";
import { frontDoorResponse } from "../../http/front-door";
import { findOperation, matchParams, MATCHERS } from "./find-operation";
import { createConformanceCheck, type ConformanceCheck, type OpenApiDoc } from "./openapi-conformance";

export { findOperation };
const ROOT = path.resolve(import.meta.dirname, "../../..");

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

async function loadModule(pathname: string): Promise<{ mod: Record<string, any>; params: Record<string, string> }> {
  const special: Record<string, string> = { "/api/v1/openapi.json": "app/api/v1/openapi.json/route.ts", "/api/v1/docs": "app/api/v1/docs/route.ts" };
  if (special[pathname]) return { mod: await import(path.join(ROOT, special[pathname])), params: {} };
  for (const { op, re } of MATCHERS) {
    const params = matchParams(re, pathname);
    if (!params) continue;
    const file = path.join(ROOT, "app/api/v1", op.path.replace(/\{(\w+)\}/g, "[$1]"), "route.ts");
    return { mod: await import(file), params };
  }
  return { mod: await import(path.join(ROOT, "app/api/v1/[[...rest]]/route.ts")), params: {} };
}

/** Calls the route module for the request's path in this process (with the deps given to `setDeps`). */
export async function dispatchInProcess(request: Request): Promise<Response> {
  const { mod, params } = await loadModule(new URL(request.url).pathname);
  const handler = mod[request.method] as ((r: Request, c: unknown) => Promise<Response>) | undefined;
  if (!handler) return new Response(null, { status: 405 });
  return handler(request, { params: Promise.resolve(params) });
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  /** Raw body (sent as is). */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
}

export function createRestClient(opts: { baseUrl?: string } = {}) {
  const baseUrl = opts.baseUrl ?? process.env.CONVEYOR_REST_URL ?? "http://127.0.0.1:3999";
  const overHttp = !!(opts.baseUrl ?? process.env.CONVEYOR_REST_URL);
  let validator: ConformanceCheck | null = null;

  async function send(method: string, url: string, o: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    let body: BodyInit | undefined;
    if (o.raw !== undefined) body = o.raw as BodyInit;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers["content-type"] ??= "application/json";
    }
    const full = new URL(url, baseUrl);
    // Redirects are answers to check, not to follow (the trailing-slash 308).
    if (overHttp) return fetch(full, { method, headers, body, redirect: "manual" });
    // The custom server's front door (server/main.ts) runs before any route module.
    const refused = frontDoorResponse(full.pathname + full.search, new Headers(headers).get("x-request-id"));
    if (refused) return refused;
    return dispatchInProcess(new Request(full, { method, headers, body }));
  }

  async function loadValidator(): Promise<ConformanceCheck> {
    const res = await send("GET", "/api/v1/openapi.json");
    if (!res.ok) throw new Error(`GET /api/v1/openapi.json answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
    return createConformanceCheck((await res.json()) as OpenApiDoc);
  }

  async function request<T = any>(method: string, url: string, o: RequestOptions = {}): Promise<ApiResponse<T>> {
    const res = await send(method, url, o);
    const text = await res.text();
    let body: any = text;
    if ((res.headers.get("content-type") ?? "").includes("json") && text) body = JSON.parse(text);
    else if (!text) body = null;
    const pathname = new URL(url, baseUrl).pathname;
    if (pathname !== "/api/v1/openapi.json" && pathname !== "/api/v1/docs") {
      validator ??= await loadValidator();
      const problem = validator(method, pathname, res.status, res.headers, body);
      if (problem) throw new Error(`OpenAPI mismatch: ${problem}\nbody: ${text.slice(0, 500)}`);
    }
    return { status: res.status, headers: res.headers, body, text };
  }

  return {
    baseUrl,
    overHttp,
    request,
    get: <T = any>(url: string, o?: RequestOptions) => request<T>("GET", url, o),
    post: <T = any>(url: string, o?: RequestOptions) => request<T>("POST", url, o),
    put: <T = any>(url: string, o?: RequestOptions) => request<T>("PUT", url, o),
    patch: <T = any>(url: string, o?: RequestOptions) => request<T>("PATCH", url, o),
    delete: <T = any>(url: string, o?: RequestOptions) => request<T>("DELETE", url, o),
  };
}
export type RestClient = ReturnType<typeof createRestClient>;
