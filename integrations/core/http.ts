/**
 * The one outbound HTTP client every component and trigger uses.
 *
 * - timeouts (per request) and the caller's abort signal,
 * - a response size cap (a misbehaving upstream cannot exhaust memory),
 * - classification: network errors, timeouts, 408, 429 and 5xx are retryable (with `Retry-After`);
 *   other 4xx are permanent and carry the upstream's own message,
 * - the egress guard (egress.ts): every resolved address of every hop is checked and the socket
 *   connects to the checked address; redirects are followed by hand (at most 5), each hop checked,
 *   credentials dropped when the origin changes,
 * - an optional auth header provider and a one-shot `onUnauthorized` hook (OAuth refresh on 401).
 *
 * It never logs headers or bodies, so secrets cannot leak through it.
 */
import { fetch as undiciFetch, type Agent } from "undici";
import { IntegrationHttpError, NonRetryableError, RetryableError } from "./errors";
import { EgressRefusedError, getEgress, type EgressGuard } from "./egress";

export interface HttpRequest {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";
  /** Absolute URL, or a path joined to the client's `baseUrl`. */
  url: string;
  query?: Record<string, string | number | boolean | undefined | null | Array<string | number>>;
  headers?: Record<string, string>;
  /** JSON body (sets content-type). */
  json?: unknown;
  /** application/x-www-form-urlencoded body. */
  form?: Record<string, string>;
  /** Raw body. */
  body?: string;
  timeoutMs?: number;
  /** Statuses that should be returned instead of thrown (e.g. [404] for "exists?" checks). */
  okStatuses?: number[];
}

export interface HttpResponse<T = unknown> {
  status: number;
  headers: Headers;
  /** Parsed JSON when the response is JSON, else the text (or null when empty). */
  body: T;
  url: string;
}

export interface HttpClientOptions {
  baseUrl?: string;
  headers?: Record<string, string>;
  /** Returns auth headers for each request (called per attempt so refreshed tokens are used). */
  auth?: () => Promise<Record<string, string>> | Record<string, string>;
  /** Called once on a 401; return true to retry the request (e.g. after an OAuth refresh). */
  onUnauthorized?: () => Promise<boolean>;
  timeoutMs?: number;
  maxResponseBytes?: number;
  signal?: AbortSignal;
  /** Builds the message of a failed response from its body (integration-specific error shapes). */
  describeError?: (status: number, body: unknown) => string | undefined;
  /** The egress guard and its dispatcher (default: the process-wide one, see egress.ts). */
  egress?: { guard: EgressGuard; agent: Agent };
}

export interface HttpClient {
  request<T = unknown>(req: HttpRequest): Promise<HttpResponse<T>>;
  get<T = unknown>(url: string, query?: HttpRequest["query"], extra?: Partial<HttpRequest>): Promise<HttpResponse<T>>;
  post<T = unknown>(url: string, json?: unknown, extra?: Partial<HttpRequest>): Promise<HttpResponse<T>>;
  /** A client with the same settings and a different base URL / extra options. */
  with(options: Partial<HttpClientOptions>): HttpClient;
}

export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

export const MAX_REDIRECTS = 5;

/** The guard's own error (a refusal, or a name that does not resolve), wherever fetch wrapped it. */
function guardError(e: unknown): Error | undefined {
  for (let cur = e as { cause?: unknown } | undefined, i = 0; cur && i < 5; cur = cur.cause as typeof cur, i++) {
    if (cur instanceof EgressRefusedError || cur instanceof NonRetryableError || cur instanceof RetryableError) return cur;
  }
  return undefined;
}

/** Parses `Retry-After` (seconds or HTTP date) into milliseconds. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const secs = Number(value);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function buildUrl(base: string | undefined, url: string, query?: HttpRequest["query"]): URL {
  let u: URL;
  if (/^https?:\/\//i.test(url)) u = new URL(url);
  else {
    if (!base) throw new NonRetryableError(`No base URL configured for request to ${url}`);
    u = new URL(base.replace(/\/+$/, "") + "/" + url.replace(/^\/+/, ""));
  }
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) u.searchParams.append(k, String(item));
    else u.searchParams.set(k, String(v));
  }
  return u;
}

async function readCapped(res: Response, max: number): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > max) throw new NonRetryableError(`Upstream response of ${declared} bytes exceeds the ${max}-byte limit`);
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw new NonRetryableError(`Upstream response exceeds the ${max}-byte limit`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseBody(text: string, contentType: string | null): unknown {
  if (!text) return null;
  if ((contentType ?? "").includes("json") || /^[\s]*[[{"]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function defaultDescribe(status: number, body: unknown): string {
  if (typeof body === "string" && body.trim()) return body.trim().slice(0, 500);
  if (body && typeof body === "object") {
    const b = body as Record<string, unknown>;
    for (const k of ["error", "message", "detail", "error_description", "title"]) {
      if (typeof b[k] === "string" && b[k]) return b[k] as string;
    }
    if (Array.isArray(b.errorMessages) && b.errorMessages.length) return (b.errorMessages as string[]).join("; ");
    return JSON.stringify(body).slice(0, 500);
  }
  return `HTTP ${status}`;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  async function send(url: URL, init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal }) {
    const egress = options.egress ?? getEgress();
    let current = url;
    let { method, body } = init;
    const headers = { ...init.headers };
    for (let hop = 0; ; hop++) {
      if (current.protocol !== "http:" && current.protocol !== "https:")
        throw new NonRetryableError(`Refusing to call ${current.protocol} URLs; only http and https are allowed`);
      // The dispatcher checks the resolved address again at connect time (it is what the socket uses).
      const res = await undiciFetch(current, { method, headers, body, signal: init.signal, redirect: "manual", dispatcher: egress.agent });
      const location = res.headers.get("location");
      if (!REDIRECTS.has(res.status) || !location) return { res, url: current };
      await res.body?.cancel().catch(() => {});
      if (hop >= MAX_REDIRECTS) throw new NonRetryableError(`Too many redirects (more than ${MAX_REDIRECTS}) from ${url.origin}${url.pathname}`);
      const next = new URL(location, current);
      if (next.origin !== current.origin) for (const k of Object.keys(headers)) if (/^(authorization|cookie|proxy-authorization)$/i.test(k)) delete headers[k];
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
        method = method === "HEAD" ? "HEAD" : "GET";
        body = undefined;
        for (const k of Object.keys(headers)) if (/^content-(type|length)$/i.test(k)) delete headers[k];
      }
      current = next;
    }
  }

  async function request<T>(req: HttpRequest, allowRefresh = true): Promise<HttpResponse<T>> {
    const url = buildUrl(options.baseUrl, req.url, req.query);
    const headers: Record<string, string> = { accept: "application/json", ...options.headers, ...req.headers };
    if (options.auth) Object.assign(headers, await options.auth());
    let body: string | undefined = req.body;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers["content-type"] ??= "application/json";
    } else if (req.form) {
      body = new URLSearchParams(req.form).toString();
      headers["content-type"] ??= "application/x-www-form-urlencoded";
    }
    const timeoutMs = req.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const method = req.method ?? (body !== undefined ? "POST" : "GET");
    let res: Response;
    let finalUrl: URL;
    try {
      ({ res, url: finalUrl } = (await send(url, { method, headers, body, signal })) as unknown as { res: Response; url: URL });
    } catch (e) {
      const own = guardError(e);
      if (own) throw own;
      if (options.signal?.aborted) throw new NonRetryableError("Cancelled");
      const err = e as Error & { cause?: { code?: string; message?: string } };
      if (timeout.aborted || err.name === "TimeoutError") {
        throw new RetryableError(`${method} ${url.origin}${url.pathname} timed out after ${timeoutMs} ms`);
      }
      const cause = err.cause?.code ?? err.cause?.message ?? err.message;
      throw new RetryableError(`${method} ${url.origin}${url.pathname} failed: ${cause}`);
    }
    let text: string;
    try {
      text = await readCapped(res, options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
    } catch (e) {
      // The same deadline covers the body: an upstream that sends its headers and then stalls or drips
      // is a timeout like one that never answers (retryable, named), not an anonymous AbortError.
      if (e instanceof NonRetryableError) throw e;
      if (options.signal?.aborted) throw new NonRetryableError("Cancelled");
      if (timeout.aborted) throw new RetryableError(`${method} ${url.origin}${url.pathname} timed out after ${timeoutMs} ms while reading the response`);
      const err = e as Error & { cause?: { code?: string; message?: string } };
      throw new RetryableError(`${method} ${url.origin}${url.pathname} failed while reading the response: ${err.cause?.code ?? err.cause?.message ?? err.message}`);
    }
    const parsed = parseBody(text, res.headers.get("content-type"));
    if (res.status === 401 && allowRefresh && options.onUnauthorized) {
      if (await options.onUnauthorized()) return request<T>(req, false);
    }
    if ((res.status >= 200 && res.status < 300) || req.okStatuses?.includes(res.status)) {
      return { status: res.status, headers: res.headers, body: parsed as T, url: finalUrl.toString() };
    }
    const detail = options.describeError?.(res.status, parsed) ?? defaultDescribe(res.status, parsed);
    const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
    const retryAfterMs = parseRetryAfter(res.headers.get("retry-after"));
    throw new IntegrationHttpError(`${method} ${url.pathname} → ${res.status}: ${detail}`, res.status, retryable, parsed, retryAfterMs);
  }

  return {
    request: (req) => request(req),
    get: (url, query, extra) => request({ ...extra, method: "GET", url, query }),
    post: (url, json, extra) => request({ ...extra, method: "POST", url, json }),
    with: (more) => createHttpClient({ ...options, ...more, headers: { ...options.headers, ...more.headers } }),
  };
}
