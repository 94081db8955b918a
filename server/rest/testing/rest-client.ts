/**
 * Test client for /api/v1. Dispatches in process to the real route modules (app/api/v1/**) with the
 * deps given to `setDeps`, or over HTTP when `CONVEYOR_REST_URL` is set (the built app). Every
 * response is checked against the served OpenAPI document: the status must be documented for the
 * operation and the body must match its schema.
 */
import path from "node:path";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { ALL_OPERATIONS } from "../openapi";
import type { Operation } from "../operation";
import { frontDoorResponse } from "../../http/front-door";

const ROOT = path.resolve(import.meta.dirname, "../../..");
type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> };

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

function safeDecode(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

function opRegex(p: string) {
  return new RegExp("^/api/v1" + p.replace(/\{(\w+)\}/g, "(?<$1>[^/]+)") + "$");
}
const MATCHERS = ALL_OPERATIONS.map((op) => ({ op, re: opRegex(op.path) }));

export function findOperation(method: string, pathname: string): { op: Operation; params: Record<string, string> } | null {
  let pathOnly: { op: Operation; params: Record<string, string> } | null = null;
  for (const { op, re } of MATCHERS) {
    const m = re.exec(pathname);
    if (!m) continue;
    const params = Object.fromEntries(Object.entries(m.groups ?? {}).map(([k, v]) => [k, safeDecode(v)]));
    if (op.method === method) return { op, params };
    pathOnly ??= { op, params };
  }
  return pathOnly ? { op: { ...pathOnly.op, method: method as Operation["method"] }, params: pathOnly.params } : null;
}

async function loadModule(pathname: string): Promise<{ mod: Record<string, any>; params: Record<string, string> }> {
  const special: Record<string, string> = { "/api/v1/openapi.json": "app/api/v1/openapi.json/route.ts", "/api/v1/docs": "app/api/v1/docs/route.ts" };
  if (special[pathname]) return { mod: await import(path.join(ROOT, special[pathname])), params: {} };
  for (const { op, re } of MATCHERS) {
    const m = re.exec(pathname);
    if (!m) continue;
    const file = path.join(ROOT, "app/api/v1", op.path.replace(/\{(\w+)\}/g, "[$1]"), "route.ts");
    const params = Object.fromEntries(Object.entries(m.groups ?? {}).map(([k, v]) => [k, safeDecode(v)]));
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
  let validator: ((method: string, pathname: string, status: number, body: unknown) => string | null) | null = null;

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

  async function loadValidator() {
    const res = await send("GET", "/api/v1/openapi.json");
    if (!res.ok) throw new Error(`GET /api/v1/openapi.json answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
    const doc = (await res.json()) as Doc;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ ...doc, $id: "openapi.json" } as object);
    const cache = new Map<string, ReturnType<typeof ajv.compile>>();
    return (method: string, pathname: string, status: number, body: unknown): string | null => {
      const found = findOperation(method, pathname);
      if (!found) {
        // Unknown paths: 404, or the front door's 400 for a broken escape or 308 for a trailing slash (server/http/front-door.ts).
        const code = (body as { code?: string })?.code;
        const frontDoor = (status === 400 && code === "bad_request") || (status === 308 && code === "trailing_slash");
        return (status === 404 && code === "not_found") || frontDoor ? null : `no operation for ${method} ${pathname}`;
      }
      const { op } = found;
      const m = method.toLowerCase();
      const entry = doc.paths[op.path]?.[m];
      // 405 for a method the path does not have, and OPTIONS (204 with Allow): not operations of the document.
      if (!entry) return status === 405 || (method === "OPTIONS" && status === 204) ? null : `${method} ${op.path} is not in the document`;
      const resp = entry.responses[String(status)];
      if (!resp) return `status ${status} is not documented for ${method} ${op.path}`;
      const media = resp.content ? Object.keys(resp.content)[0] : undefined;
      if (!media) return body === null || body === "" ? null : `${status} should have no body`;
      // Responses that are a bare $ref (every problem response) share one compiled validator.
      const ref = (resp.content![media] as { schema?: { $ref?: string } }).schema?.$ref;
      const ptr = ref?.startsWith("#/")
        ? `openapi.json${ref}`
        : `openapi.json#/paths/${op.path.replace(/~/g, "~0").replace(/\//g, "~1")}/${m}/responses/${status}/content/${media.replace(/\//g, "~1")}/schema`;
      let v = cache.get(ptr);
      if (!v) cache.set(ptr, (v = ajv.compile({ $ref: ptr })));
      return v(body) ? null : `${method} ${pathname} ${status}: ${ajv.errorsText(v.errors)}`;
    };
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
      const problem = validator(method, pathname, res.status, body);
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
