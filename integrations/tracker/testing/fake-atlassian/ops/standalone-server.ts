/**
 * A small loopback host for FakeModules (JSM, JSM Ops) with bearer auth and OpenAPI request validation
 * (openapi-backend against the vendor files in testing/openapi/). Used by part-2 tests on their own;
 * the full fake Atlassian (server.ts) mounts the same modules.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { OpenAPIBackend } from "openapi-backend";
import { applySpecQuirks, isUndeclaredCloudIdError } from "./spec-quirks";
import { matchPath, type FakeModule, type FakeRequest, type FakeResponse } from "../route-kit";

const OPENAPI_DIR = fileURLToPath(new URL("../../openapi", import.meta.url));
const backends = new Map<string, Promise<OpenAPIBackend>>();

function backendFor(file: string): Promise<OpenAPIBackend> {
  let b = backends.get(file);
  if (!b) {
    const definition = JSON.parse(readFileSync(path.join(OPENAPI_DIR, file), "utf8"));
    delete definition.servers;
    applySpecQuirks(file, definition);
    const api = new OpenAPIBackend({ definition, strict: false, quick: true, validate: true, ajvOpts: { strict: false, validateFormats: false } });
    b = api.init().then(() => api);
    backends.set(file, b);
  }
  return b;
}

/** Validates a request against the module's OpenAPI file; returns a message when the real API would reject it. */
export async function validateAgainstSpec(mod: FakeModule, req: FakeRequest): Promise<string | undefined> {
  if (!mod.spec) return undefined;
  const prefixRe = new RegExp("^" + mod.spec.prefix.replace(/\{[^}]+\}/g, "[^/]+"));
  const api = await backendFor(mod.spec.file);
  const oreq = { method: req.method, path: req.path.replace(prefixRe, ""), query: req.query, headers: req.headers, body: req.body };
  const op = api.matchOperation(oreq);
  if (!op) return `No operation ${req.method} ${oreq.path} in ${mod.spec.file}`;
  const res = api.validateRequest(oreq, op);
  // The Ops file declares `{cloudId}` in paths but not as a parameter of most operations: not a caller error.
  const errors = (res.errors ?? []).filter((e) => !isUndeclaredCloudIdError(e));
  if (!errors.length) return undefined;
  return errors.map((e) => `${e.instancePath || "request"} ${e.message}`).join("; ");
}

export interface StandaloneFake {
  url: string;
  server: Server;
  /** Access tokens accepted, mapped to the account id they act as. */
  tokens: Map<string, string>;
  /** Every request received (method, path, body), for assertions on what Conveyor sent. */
  received: Array<{ method: string; path: string; query: Record<string, string | string[]>; body: unknown }>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startStandaloneFake(modules: FakeModule[]): Promise<StandaloneFake> {
  const tokens = new Map<string, string>();
  const received: StandaloneFake["received"] = [];
  const send = (res: import("node:http").ServerResponse, r: FakeResponse) => {
    const text = r.body === undefined ? "" : JSON.stringify(r.body);
    res.writeHead(r.status, { ...(text ? { "content-type": "application/json" } : {}), ...r.headers });
    res.end(text);
  };
  const server = createServer(async (req, res) => {
    try {
      const u = new URL(req.url ?? "/", "http://127.0.0.1");
      const query: Record<string, string | string[]> = {};
      for (const [k, v] of u.searchParams) {
        const cur = query[k];
        query[k] = cur === undefined ? v : Array.isArray(cur) ? [...cur, v] : [cur, v];
      }
      const raw = await readBody(req);
      let body: unknown = undefined;
      if (raw) {
        try {
          body = JSON.parse(raw);
        } catch {
          return send(res, { status: 400, body: { errorMessage: "Invalid JSON body" } });
        }
      }
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      received.push({ method: req.method!, path: u.pathname, query, body });
      const token = /^Bearer (.+)$/.exec(headers.authorization ?? "")?.[1];
      if (!token || !tokens.has(token)) return send(res, { status: 401, body: { code: 401, message: "Unauthorized; scope does not match" } });
      for (const mod of modules) {
        for (const route of mod.routes) {
          if (route.method !== req.method) continue;
          const params = matchPath(route.path, u.pathname);
          if (!params) continue;
          const freq: FakeRequest = { method: req.method!, path: u.pathname, params, query, headers, body, accountId: tokens.get(token) };
          const problem = await validateAgainstSpec(mod, freq);
          if (problem) return send(res, { status: 400, body: { errorMessage: problem, errors: [{ title: problem, code: "400" }] } });
          return send(res, await route.handler(freq));
        }
      }
      send(res, { status: 404, body: { errorMessage: `No route for ${req.method} ${u.pathname}` } });
    } catch (e) {
      send(res, { status: 500, body: { errorMessage: (e as Error).message } });
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address() as import("node:net").AddressInfo;
  return {
    url: `http://127.0.0.1:${addr.port}`,
    server,
    tokens,
    received,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
