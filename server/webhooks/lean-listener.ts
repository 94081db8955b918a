/**
 * `/hooks/*` on plain node:http, before Next.js sees the request (server/main.ts calls this).
 * Next's request path tops out near 1.8k req/s on these machines; this one reads the body with a
 * size cap, calls receiveWebhook (whose commits are grouped per event-loop tick) and answers; a
 * delivery known not to be committed gets 503 + Retry-After, one whose commit outcome is unknown
 * gets no answer: the connection is destroyed without a response (server/webhooks/deliver.ts).
 * The web process and `conveyor ingress` (server/roles/ops-http.ts) both serve it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AppDeps } from "../deps";
import { getMetrics } from "../observability/metrics";
import { DEFAULT_WEBHOOK_MAX_BYTES, hookProblem } from "../services/webhooks/receive-webhook";
import { deliverWebhook, isNoAnswer, type DeliverOptions, type DeliverOutcome } from "./deliver";

export type HookOptions = DeliverOptions;

const RESULT_BY_STATUS: Record<number, string> = {
  202: "accepted",
  200: "duplicate",
  401: "unauthorized",
  404: "not_found",
  413: "too_large",
  400: "rejected",
  415: "rejected",
  422: "rejected",
  503: "unavailable",
};

// The counter's child per result, looked up once (prom-client hashes the label set on every inc otherwise).
const byResult = new WeakMap<object, Map<string, { inc(): void }>>();
function countDelivery(status: number | "no_answer"): void {
  const counter = getMetrics().webhookDeliveries;
  let children = byResult.get(counter);
  if (!children) byResult.set(counter, (children = new Map()));
  const result = status === "no_answer" ? status : (RESULT_BY_STATUS[status] ?? (status >= 500 ? "error" : "other"));
  let child = children.get(result);
  if (!child) children.set(result, (child = counter.labels({ result })));
  child.inc();
}

function send(res: ServerResponse, r: DeliverOutcome): void {
  if (isNoAnswer(r)) {
    // What a sender sees when an ingress dies mid-request: it retries (a delivery id makes a landed one a duplicate).
    countDelivery("no_answer");
    res.socket?.destroy();
    res.destroy();
    return;
  }
  countDelivery(r.status);
  const text = JSON.stringify(r.body);
  res.writeHead(r.status, { "content-type": "application/json", ...r.headers, "content-length": Buffer.byteLength(text) });
  res.end(text);
}

export function handleHookRequest(req: IncomingMessage, res: ServerResponse, deps: AppDeps, opts: HookOptions = {}): void {
  const maxBytes = opts.maxBytes ?? DEFAULT_WEBHOOK_MAX_BYTES;
  const raw = req.url ?? "/";
  const q = raw.indexOf("?");
  const pathname = q < 0 ? raw : raw.slice(0, q);
  let token = pathname.slice("/hooks/".length).replace(/\/+$/, "");
  try {
    token = decodeURIComponent(token);
  } catch {
    /* malformed escapes: the token simply will not match */
  }
  const declared = Number(req.headers["content-length"] ?? 0);
  const tooLarge = () => send(res, hookProblem("payload_too_large", `The body is over the limit of ${maxBytes} bytes.`));
  if (declared > maxBytes) {
    tooLarge();
    req.resume();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let aborted = false;
  req.on("data", (c: Buffer) => {
    if (aborted) return;
    size += c.length;
    if (size > maxBytes) {
      aborted = true;
      tooLarge();
      req.resume();
      return;
    }
    chunks.push(c);
  });
  req.on("end", () => {
    if (aborted) return;
    const headers: Record<string, string> = {};
    const h = req.headers;
    for (const k in h) {
      const v = h[k];
      if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
    }
    const query: Record<string, string> = {};
    if (q >= 0) new URLSearchParams(raw.slice(q + 1)).forEach((v, k) => (query[k] = v));
    const rawBody = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    void deliverWebhook(
      deps,
      { token, method: req.method ?? "GET", headers, query, rawBody },
      { maxBytes, timeoutMs: opts.timeoutMs, outcomeGraceMs: opts.outcomeGraceMs, signatureToleranceS: opts.signatureToleranceS },
    ).then((r) => send(res, r));
  });
}
