/**
 * apiRoute(operation, handler): the REST door. Authenticates the Bearer API key, rate-limits per
 * key, checks the role, awaits Next 16 `params`, parses params/query/JSON body with the
 * operation's zod schemas, runs the handler, validates the success body against the operation's
 * response schema, applies Idempotency-Key, counts the call and turns every throw into problem+json.
 */
import { z } from "zod";
import type { Actor } from "../auth/permissions";
import { ROLES, roleRank } from "../auth/permissions";
import { getDeps, type AppDeps } from "../deps";
import { AppError, type FieldProblem } from "../errors";
import { requestIdFrom } from "../ids";
import { authenticateApiKey } from "../services/api-keys/api-keys";
import { countApiCall } from "./api-usage";
import { getMetrics } from "../observability/metrics";
import { checkIdempotencyKey, withIdempotency } from "./idempotency";
import { HTTP_METHODS, type HttpMethod, type Operation } from "./operation";
import { problemResponse, toErrorResponse, zodProblems } from "./problem";
import { createRateLimiter, storeWindowCounter } from "./rate-limit";
import { readJsonBody } from "./read-body";
import { restConfig } from "./rest-config";

type ApiKeyActor = Extract<Actor, { kind: "apiKey" }>;
export interface RouteContext<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
  actor: ApiKeyActor;
  deps: AppDeps;
  request: Request;
  requestId: string;
}
export type NextContext = { params: Promise<Record<string, string | string[] | undefined>> };
export type RouteHandler = ((request: Request, ctx: NextContext) => Promise<Response>) & { method: HttpMethod; operation?: Operation };

let limiter: { rl: ReturnType<typeof createRateLimiter>; store: AppDeps["store"] } | null = null;
/** Windows in memory on SQLite (one web process), in the database on PostgreSQL (shared by every web process); see rate-limit.ts. */
function rateLimiter(store: AppDeps["store"]) {
  const { rateLimit, rateWindowMs } = restConfig();
  if (!limiter || limiter.rl.limit !== rateLimit || limiter.store !== store) {
    const counter = store.dialect === "postgres" ? storeWindowCounter(store) : undefined;
    limiter = { rl: createRateLimiter({ limit: rateLimit, windowMs: rateWindowMs, counter }), store };
  }
  return limiter.rl;
}

function parse<T extends z.ZodType>(schema: T, value: unknown, where: "params" | "query" | "body"): z.output<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const prefix = where === "body" ? [] : [where];
  if (where === "params") throw new AppError("not_found", "No such resource: the path parameters are not valid ids.");
  let problems = zodProblems(r.error, prefix);
  if (where === "query") {
    // `?createdFrom=2026-11-25T13:00:00+00:00` arrives with a space for the `+` (form encoding): say so.
    const raw = value as Record<string, string>;
    problems = problems.map((p) => {
      const v = raw[p.path.slice("query.".length)];
      return v?.includes(" ") && /[0-9] [0-9]/.test(v) ? { ...p, message: `${p.message} (a "+" in a URL query arrives as a space: send it as %2B)` } : p;
    });
  }
  throw new AppError("validation_failed", `The request ${where} is not valid; see \`errors\` for each field.`, problems);
}

/** An operation without query parameters takes none: `?force=true` on a DELETE is a 422, not silently ignored. */
const NO_QUERY = z.strictObject({});

/** The query string as an object; no parameter of this API is a list, so one given twice is a 422 saying so. */
function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  const repeated: FieldProblem[] = [];
  for (const k of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(k);
    if (all.length > 1) repeated.push({ path: `query.${k}`, message: `Given ${all.length} times; send it once` });
    out[k] = all[0]!;
  }
  if (repeated.length) throw new AppError("validation_failed", "The request query is not valid; see `errors` for each field.", repeated);
  return out;
}

const HEADERS = Symbol("headers");
/** A success body plus response headers (ETag and friends); the body is still checked against the operation's schema. */
export function withHeaders<T>(body: T, headers: Record<string, string>): { [HEADERS]: Record<string, string>; body: T } {
  return { [HEADERS]: headers, body };
}

export function apiRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType>(
  op: Operation<P, Q, B, R>,
  handler: (ctx: RouteContext<P, Q, B>) => Promise<unknown>,
): RouteHandler {
  const fn = async (request: Request, nextCtx: NextContext): Promise<Response> => {
    const requestId = requestIdOf(request);
    const url = new URL(request.url);
    let deps: AppDeps | undefined;
    let extraHeaders: Record<string, string> = {};
    let factoryId: string | undefined;
    // API calls count towards a workspace's usage unless the workspace was not found / not visible.
    const count = (status: number) => {
      getMetrics().apiRequests.inc({ method: request.method, status: String(status) });
      if (deps && factoryId && status !== 403 && status !== 404) countApiCall(deps.store, factoryId, deps.now());
    };
    try {
      deps = await getDeps();
      const actor = await authenticateApiKey(deps, request.headers.get("authorization"));
      const rl = await rateLimiter(deps.store).take(actor.keyId);
      extraHeaders = rl.headers;
      if (!rl.ok) {
        throw new AppError(
          "rate_limited",
          `This key made more than ${rl.headers["RateLimit-Limit"]} requests in the current window; retry after ${rl.retryAfterS} s.`,
          undefined,
          {
            "Retry-After": String(rl.retryAfterS),
          },
        );
      }
      if (roleRank(actor.role) < roleRank(op.role)) {
        throw new AppError(
          "forbidden",
          `This key's role (${actor.role}) cannot ${op.summary.toLowerCase()}; it needs ${op.role} or higher (${ROLES.slice(roleRank(op.role), 4).join(", ")}).`,
        );
      }
      if (op.method === "POST" && !op.idempotent && request.headers.has("idempotency-key")) {
        // Ignoring it would let a retry repeat the action while the caller believes it safe.
        throw new AppError(
          "validation_failed",
          `This operation (${op.summary.toLowerCase()}) does not take Idempotency-Key, so a retry would not be recognised; send it only where the OpenAPI document lists it.`,
          [{ path: "Idempotency-Key", message: "Not taken by this operation" }],
        );
      }
      const rawParams = await nextCtx.params;
      const params = op.params ? parse(op.params, rawParams, "params") : undefined;
      if (typeof (rawParams as Record<string, unknown>)?.factoryId === "string") factoryId = String(rawParams.factoryId);
      const query = parse(op.query ?? NO_QUERY, queryObject(url), "query");
      let body: unknown;
      let raw = "";
      if (op.body) {
        const read = await readJsonBody(request, restConfig().maxBodyBytes);
        // Idempotency compares the parsed JSON, so whitespace differences are the same request.
        raw = read.value === undefined ? "" : JSON.stringify(read.value);
        if (read.value === undefined && !op.bodyOptional) {
          throw new AppError("validation_failed", "This request needs a JSON body.", [{ path: "", message: "Required" }]);
        }
        // Only an absent body stands for `{}`: a JSON `null` is a body of the wrong type, answered as such.
        body = parse(op.body, read.value === undefined ? {} : read.value, "body");
      }
      const d = deps;
      const run = async () => {
        let result = await handler({ params, query, body, actor, deps: d, request, requestId } as RouteContext<P, Q, B>);
        if (result instanceof Response) return result;
        let headers: Record<string, string> = {};
        if (result && typeof result === "object" && HEADERS in result) {
          headers = (result as { [HEADERS]: Record<string, string> })[HEADERS];
          result = (result as unknown as { body: unknown }).body;
        }
        if (op.status === 204 || result === undefined) return new Response(null, { status: 204 });
        const checked = op.response ? op.response.safeParse(result) : { success: true as const, data: result };
        if (!checked.success) {
          d.log.error("rest: response does not match its schema", { op: op.id, requestId, issues: checked.error.issues.slice(0, 5) });
          throw new Error(`Response of ${op.id} does not match its schema`);
        }
        return Response.json(checked.data, { status: op.status ?? 200, headers });
      };
      const idemKey = op.idempotent ? request.headers.get("idempotency-key") : null;
      const res = idemKey
        ? await withIdempotency(
            deps.store,
            { apiKeyId: actor.keyId, key: checkIdempotencyKey(idemKey), method: request.method, path: url.pathname, rawBody: raw, now: deps.now().getTime() },
            run,
          )
        : await run();
      const headers = new Headers(res.headers);
      headers.set("x-request-id", requestId);
      // Also on a replayed answer (only its body is stored).
      if (op.location && res.ok && res.status !== 204) {
        const id = ((await res.clone().json()) as { id?: unknown }).id;
        if (typeof id === "string") headers.set("location", locationOf(op.location, rawParams, id));
      }
      for (const [k, v] of Object.entries(extraHeaders)) headers.set(k, v);
      count(res.status);
      return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
    } catch (error) {
      const res = toErrorResponse(queryPaths(op, error), { instance: url.pathname, requestId, log: deps?.log });
      for (const [k, v] of Object.entries(extraHeaders)) res.headers.set(k, v);
      count(res.status);
      return res;
    }
  };
  return Object.assign(fn, { method: op.method, operation: op as unknown as Operation });
}

/**
 * A service names a bad query parameter by its bare name (`cursor`, `from`); the door's own query
 * validation says `query.<name>`. On an operation without a body every field problem that names one
 * of its query parameters is about the query, so it gets the same prefix.
 */
function queryPaths(op: Operation, error: unknown): unknown {
  if (!(error instanceof AppError) || !error.errors?.length || op.body || !(op.query instanceof z.ZodObject)) return error;
  const names = new Set(Object.keys(op.query.shape));
  const errors = error.errors.map((e) => (names.has(e.path.split(".")[0]!) ? { ...e, path: `query.${e.path}` } : e));
  return new AppError(error.code, error.message, errors, error.headers);
}

function locationOf(template: string, params: Record<string, string | string[] | undefined>, id: string): string {
  return "/api/v1" + template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(name === "id" ? id : String(params[name] ?? "")));
}

/** The caller's `X-Request-Id` when it is a sane token, else a new one. */
export function requestIdOf(request: Request): string {
  return requestIdFrom(request.headers.get("x-request-id"));
}

/** 405 with `Allow` for methods a path does not support. */
export function methodNotAllowed(allowed: HttpMethod[]) {
  return async (request: Request) =>
    problemResponse("method_not_allowed", `${request.method} is not supported here; use ${allowed.join(", ")}.`, {
      headers: { Allow: allowed.join(", ") },
      instance: new URL(request.url).pathname,
      requestId: requestIdOf(request),
    });
}

/**
 * Every method of a route file: the given handlers, 405 for the rest, and OPTIONS naming the methods
 * the path has (Next's own OPTIONS would list every exported one, the 405s included).
 * `export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes(...)`
 */
export function routes(...handlers: RouteHandler[]): Record<HttpMethod | "OPTIONS", (request: Request, ctx: NextContext) => Promise<Response>> {
  const allowed = handlers.map((h) => h.method);
  const out = {} as Record<HttpMethod | "OPTIONS", (request: Request, ctx: NextContext) => Promise<Response>>;
  for (const m of HTTP_METHODS) out[m] = handlers.find((h) => h.method === m) ?? methodNotAllowed(allowed);
  const allow = [...allowed, ...(allowed.includes("GET") ? ["HEAD"] : []), "OPTIONS"].join(", ");
  out.OPTIONS = async (request: Request) => new Response(null, { status: 204, headers: { Allow: allow, "x-request-id": requestIdOf(request) } });
  return out;
}
