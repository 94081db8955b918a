/**
 * The fake Atlassian server: node:http on loopback, one router over registered modules.
 *
 * Request pipeline: parse → injected fault (429 + Retry-After, 5xx, ...; or a lost answer: the request is handled,
 * then the connection is reset or left hanging) → bearer token (401 when missing or
 * expired) → OpenAPI validation of the module's vendor spec (400 with the validator's message) → OAuth scope
 * check (401 "scope does not match") → handler. Every request is logged in `state.requests`.
 *
 * Serves both hosts Conveyor talks to (auth.atlassian.com and api.atlassian.com): point `authBaseUrl` and
 * `apiBaseUrl` of the tracker connection at `url`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { controlModule } from "./control";
import { jiraModule } from "./jira";
import { jsmRegistration, opsRegistration } from "./jsm/wiring";
import { oauthModule } from "./oauth";
import { scopesSatisfied, validatorFor } from "./openapi-validator";
import { matchPath, stripPrefix, type FakeModule, type FakeRequest, type FakeResponse, type FakeRoute } from "./route-kit";
import { DEMO, seedDemo } from "./seed";
import { FakeAtlassianState, type Fault } from "./state";
import { WebhookDispatcher } from "./webhook-delivery";

/** Modules, in routing order. Service desk and ops add one line each, e.g. `(s) => jsmModule(s)`. */
const MODULES: Array<(state: FakeAtlassianState) => FakeModule> = [
  (s) => oauthModule(s),
  (s) => jiraModule(s),
  (s) => controlModule(s),
  (s) => jsmRegistration(s),
  (s) => opsRegistration(s),
];

export interface FakeAtlassianOptions {
  port?: number;
  host?: string;
  /** Seed the demo data (default true). */
  seed?: boolean;
  /** Add a second accessible site. */
  secondSite?: boolean;
  consentMode?: "auto" | "page";
  /** Extra modules (tests). */
  modules?: Array<(state: FakeAtlassianState) => FakeModule>;
}

export interface FakeAtlassian {
  url: string;
  state: FakeAtlassianState;
  webhooks: WebhookDispatcher;
  demo: typeof DEMO;
  /** Queues a fault for the next matching request(s). */
  fail(fault: Fault): void;
  stop(): Promise<void>;
}

const MAX_BODY = 2 * 1024 * 1024;

/** What the pipeline learned about a request, for its log entry (and a `lose` fault to apply once handled). */
interface Seen {
  body?: unknown;
  accountId?: string;
  lose?: Fault["lose"];
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new Error("body too large");
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseQuery(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const k of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(k);
    out[k] = all.length > 1 ? all : all[0]!;
  }
  return out;
}

function send(res: ServerResponse, r: FakeResponse) {
  const headers: Record<string, string> = { ...r.headers };
  let payload: string | undefined;
  if (r.text !== undefined) payload = r.text;
  else if (r.body !== undefined && r.status !== 204) {
    payload = JSON.stringify(r.body);
    headers["content-type"] ??= "application/json;charset=UTF-8";
  }
  res.writeHead(r.status, headers);
  res.end(payload);
}

const unauthorized = (message = "Unauthorized"): FakeResponse => ({
  status: 401,
  body: { code: 401, message },
  headers: { "www-authenticate": 'Bearer realm="api.atlassian.com"' },
});

export async function startFakeAtlassian(opts: FakeAtlassianOptions = {}): Promise<FakeAtlassian> {
  const state = new FakeAtlassianState();
  if (opts.seed !== false) seedDemo(state, { secondSite: opts.secondSite });
  if (opts.consentMode) state.consentMode = opts.consentMode;
  const modules = [...MODULES, ...(opts.modules ?? [])].map((m) => m(state));
  const routes: Array<{ module: FakeModule; route: FakeRoute }> = modules.flatMap((module) => module.routes.map((route) => ({ module, route })));
  const webhooks = new WebhookDispatcher(state);

  async function handle(req: IncomingMessage, seen: Seen): Promise<FakeResponse> {
    const url = new URL(req.url ?? "/", "http://fake");
    const method = (req.method ?? "GET").toUpperCase();
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]));
    const raw = await readBody(req);
    let body: unknown = undefined;
    const ct = headers["content-type"] ?? "";
    if (raw) {
      if (ct.includes("application/x-www-form-urlencoded")) body = Object.fromEntries(new URLSearchParams(raw));
      else {
        try {
          body = JSON.parse(raw);
        } catch {
          return { status: 400, body: { errorMessages: ["Unexpected character in the request body: not valid JSON."], errors: {} } };
        }
      }
    }
    const fake: FakeRequest = { method, path: url.pathname, params: {}, query: parseQuery(url), headers, body, rawBody: raw };
    seen.body = body;

    const fault = state.takeFault(method, url.pathname);
    // A lost answer: the request goes through the pipeline (the change happens), the answer is dropped below.
    if (fault?.lose) seen.lose = fault.lose;
    else if (fault) {
      const h: Record<string, string> = {};
      if (fault.retryAfter !== undefined) h["retry-after"] = String(fault.retryAfter);
      if (fault.status === 429) Object.assign(h, { "x-ratelimit-limit": "100", "x-ratelimit-remaining": "0", "ratelimit-reason": "jira-burst-based" });
      if (fault.status === 401) return unauthorized();
      return {
        status: fault.status ?? 500,
        headers: h,
        body: fault.body ?? { errorMessages: [fault.status === 429 ? "Rate limit exceeded." : "Internal server error"], errors: {} },
      };
    }

    let hit: { module: FakeModule; route: FakeRoute; params: Record<string, string> } | undefined;
    let pathMatched = false;
    for (const { module, route } of routes) {
      const params = matchPath(route.path, url.pathname);
      if (!params) continue;
      pathMatched = true;
      if (route.method === method) {
        hit = { module, route, params };
        break;
      }
    }
    if (!hit) {
      if (pathMatched) return { status: 405, body: { errorMessages: [`Method ${method} is not allowed here.`], errors: {} } };
      for (const m of modules) {
        const specPath = m.spec && stripPrefix(m.spec.prefix, url.pathname);
        if (!specPath) continue;
        const v = await validatorFor(m.spec!.file).validate({ method, path: specPath, query: fake.query, headers, body });
        if (v.known)
          return { status: 501, body: { errorMessages: [`The fake Atlassian does not implement ${v.operationId} (${method} ${specPath}).`], errors: {} } };
      }
      return { status: 404, body: { errorMessages: ["Not found"], errors: {} } };
    }
    fake.params = hit.params;

    if (hit.route.auth !== "none") {
      const m = /^Bearer (.+)$/i.exec(headers.authorization ?? "");
      if (!m) return unauthorized("Client must be authenticated to access this resource.");
      const tok = state.accessToken(m[1]!);
      if (!tok || tok === "expired") return unauthorized();
      Object.assign(fake, { accountId: tok.accountId, clientId: tok.clientId, scopes: tok.scopes });
      seen.accountId = tok.accountId;
    }

    if (hit.module.spec) {
      const specPath = stripPrefix(hit.module.spec.prefix, url.pathname);
      const v = await validatorFor(hit.module.spec.file).validate({ method, path: specPath ?? url.pathname, query: fake.query, headers, body });
      if (!v.known) return { status: 500, body: { errorMessages: [`fake route ${method} ${url.pathname} is not in ${hit.module.spec.file}`], errors: {} } };
      if (v.errors.length) return { status: 400, body: { errorMessages: v.errors, errors: {} } };
      if (fake.scopes && !scopesSatisfied(fake.scopes, v.scopes)) return unauthorized("Unauthorized; scope does not match");
    }
    return hit.route.handler(fake);
  }

  const server: Server = createServer((req, res) => {
    const seen: Seen = {};
    handle(req, seen)
      .catch((e: Error) => ({ status: 500, body: { errorMessages: [`fake Atlassian error: ${e.message}`], errors: {} } }) as FakeResponse)
      .then((r) => {
        const u = new URL(req.url ?? "/", "http://fake");
        state.requests.push({
          method: req.method ?? "GET",
          path: u.pathname,
          query: parseQuery(u),
          body: seen.body,
          accountId: seen.accountId,
          status: r.status,
          at: Date.now(),
          ...(seen.lose ? { lost: seen.lose } : {}),
        });
        // "reset": the connection closes without an answer; "hang": no answer until the caller gives up (or stop()).
        if (seen.lose === "reset") req.socket.destroy();
        else if (!seen.lose) send(res, r);
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${opts.host ?? "127.0.0.1"}:${port}`;
  state.baseUrl = url;
  return {
    url,
    state,
    webhooks,
    demo: DEMO,
    fail: (f) => state.fail(f),
    stop: async () => {
      await webhooks.settled().catch(() => undefined);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
