/**
 * Route shape used by the JSM and JSM Ops modules of the fake Atlassian server.
 * A module is `{ routes, spec }`; paths use OpenAPI-style `{param}` segments and are mounted as given.
 * The server core parses the request, authenticates the bearer token and validates the request against
 * `spec` before calling a handler.
 */
export interface FakeRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: unknown;
  /** Account id of the authenticated caller (from the access token), when known. */
  accountId?: string;
}

export interface FakeResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface FakeRoute {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  handler(req: FakeRequest): FakeResponse | Promise<FakeResponse>;
}

export interface FakeModule {
  name: string;
  routes: FakeRoute[];
  /** OpenAPI file (under testing/openapi/) and the URL prefix to strip before matching its paths. */
  spec?: { file: string; prefix: string };
}

export const json = (status: number, body?: unknown, headers?: Record<string, string>): FakeResponse => ({ status, body, headers });

export function q(req: FakeRequest, name: string): string | undefined {
  const v = req.query[name];
  return Array.isArray(v) ? v[0] : v;
}

export function qList(req: FakeRequest, name: string): string[] {
  const v = req.query[name];
  const list = v === undefined ? [] : Array.isArray(v) ? v : [v];
  return list.flatMap((s) => s.split(",")).map((s) => s.trim()).filter(Boolean);
}

/** Matches `/a/{x}/b` against `/a/1/b`; returns params or undefined. */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const p = pattern.split("/");
  const s = path.split("/");
  if (p.length !== s.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const seg = p[i]!;
    if (seg.startsWith("{") && seg.endsWith("}")) params[seg.slice(1, -1)] = decodeURIComponent(s[i]!);
    else if (seg !== s[i]) return undefined;
  }
  return params;
}
