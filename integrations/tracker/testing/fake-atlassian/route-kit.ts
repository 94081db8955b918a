/**
 * Route shape shared by every module of the fake Atlassian server (oauth, jira, jsm, ops).
 * A module is `{ name, routes, spec? }`; paths use OpenAPI-style `{param}` segments and are matched as given.
 * The server core parses the request, applies injected faults, authenticates the bearer token (unless a
 * route says `auth: "none"`), validates the request against `spec` and checks the operation's OAuth scopes
 * before calling a handler. Structurally identical to `ops/route-kit.ts`, which it supersedes.
 */
export interface FakeRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: unknown;
  /** Raw body text (form posts, signatures). */
  rawBody?: string;
  /** Account id of the authenticated caller (from the access token), when known. */
  accountId?: string;
  /** OAuth client id of the app the access token was issued to. */
  clientId?: string;
  /** Scopes granted to the access token. */
  scopes?: string[];
}

export interface FakeResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw text body (HTML pages); sent instead of JSON when set. */
  text?: string;
}

export interface FakeRoute {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  /** "none": no bearer token needed (OAuth endpoints). Default: bearer token required. */
  auth?: "bearer" | "none";
  handler(req: FakeRequest): FakeResponse | Promise<FakeResponse>;
}

export interface FakeModule {
  name: string;
  routes: FakeRoute[];
  /** OpenAPI file (under testing/openapi/) and the URL prefix (may hold `{params}`) to strip before matching its paths. */
  spec?: { file: string; prefix: string };
}

export const json = (status: number, body?: unknown, headers?: Record<string, string>): FakeResponse => ({ status, body, headers });

/** Jira's ErrorCollection. */
export const jiraError = (status: number, errorMessages: string[], errors: Record<string, string> = {}): FakeResponse =>
  json(status, { errorMessages, errors });

export function q(req: FakeRequest, name: string): string | undefined {
  const v = req.query[name];
  return Array.isArray(v) ? v[0] : v;
}

export function qList(req: FakeRequest, name: string): string[] {
  const v = req.query[name];
  const list = v === undefined ? [] : Array.isArray(v) ? v : [v];
  return list
    .flatMap((s) => s.split(","))
    .map((s) => s.trim())
    .filter(Boolean);
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

/** Strips a prefix pattern such as `/ex/jira/{cloudId}` from `path`; undefined when it does not match. */
export function stripPrefix(prefix: string, path: string): string | undefined {
  const n = prefix.split("/").length;
  const segs = path.split("/");
  if (segs.length < n) return undefined;
  if (!matchPath(prefix, segs.slice(0, n).join("/"))) return undefined;
  return "/" + segs.slice(n).join("/");
}
