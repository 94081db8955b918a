/**
 * One webhook delivery through receiveWebhook, for every door (the lean listener, the Next route):
 * it never throws and never hangs. When the delivery cannot be committed (the database is down,
 * slow or blackholed; PostgreSQL pools of ingress processes fail within seconds, see server/deps.ts),
 * or is not committed within `timeoutMs`, the answer is 503 problem+json with `Retry-After`: never
 * 202 for work that was not stored, and never a 500, so senders retry. After a timeout the commit
 * may still land; a retried delivery carrying a delivery id (Alertmanager's fingerprint, an
 * Idempotency-Key) is then recognised as a duplicate.
 */
import type { AppDeps } from "../deps";
import { RETRY_AFTER_S } from "../observability/health";
import { DEFAULT_WEBHOOK_MAX_BYTES, hookProblem, receiveWebhook, type WebhookRequest, type WebhookResponse } from "../services/webhooks/receive-webhook";

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

export interface DeliverOptions {
  maxBytes?: number;
  /** Answer 503 when the delivery is not committed by then. */
  timeoutMs?: number;
}

export function notStored(detail: string): WebhookResponse {
  return hookProblem("unavailable", `The delivery was not stored: ${detail}. Retry it later.`, { headers: { "retry-after": String(RETRY_AFTER_S) } });
}

/** No intake token has control characters or is this long: such a URL is unknown without asking the database (which refuses NUL bytes). */
function impossibleToken(token: string): boolean {
  if (token.length > 200) return true;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

export async function deliverWebhook(deps: AppDeps, req: WebhookRequest, opts: DeliverOptions = {}): Promise<WebhookResponse> {
  if (impossibleToken(req.token)) return hookProblem("not_found", "No active webhook at this URL.");
  const timeoutMs = opts.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<WebhookResponse>((resolve) => {
    timer = setTimeout(() => {
      deps.log.error("webhook delivery not committed in time", { timeoutMs });
      resolve(notStored(`it was not committed within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  const received = receiveWebhook(deps, req, { maxBytes: opts.maxBytes ?? DEFAULT_WEBHOOK_MAX_BYTES }).catch((e: unknown) => {
    deps.log.error("webhook delivery not stored", { error: (e as Error).message });
    return notStored("the database did not answer");
  });
  try {
    return await Promise.race([received, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
