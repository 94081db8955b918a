/**
 * One webhook delivery through receiveWebhook, for every door (the lean listener, the Next route):
 * it never throws and never hangs. It gives one of three answers, and never a definite one it does
 * not know to be true:
 *
 * - the service's answer (202 with the run ids once the delivery is committed, or a 4xx);
 * - 503 problem+json with `Retry-After` when the delivery is known NOT to be stored: the database
 *   could not be reached (PostgreSQL pools of ingress processes fail within seconds, see
 *   server/deps.ts), it answered with an error (the commit rolled back), or `timeoutMs` passed
 *   before the commit started (it then never starts);
 * - no answer at all ({@link NoAnswer}: the door closes the connection without a response) when
 *   the commit's outcome is unknown: it was sent and no reply came (db/commit-outcome.ts), or
 *   `timeoutMs` passed while it was pending and it did not settle within `outcomeGraceMs` more.
 *   That is what a sender sees when an ingress dies mid-request; it retries, and a delivery id
 *   (Alertmanager's fingerprint, an Idempotency-Key) makes a retry of a delivery that did land a
 *   duplicate.
 *
 * A commit that was pending at `timeoutMs` and settles within the grace gets its real answer (202
 * when it landed). The PostgreSQL ingest resolves a lost reply itself by checking on a fresh
 * connection whether the batch's run ids exist (db/pg/ingest-outcome.ts); the embedded SQLite
 * commit's promise settles with its outcome.
 */
import { isCommitOutcomeUnknown } from "@/db/types";
import type { AppDeps } from "../deps";
import { RETRY_AFTER_S } from "../observability/health";
import { DEFAULT_WEBHOOK_MAX_BYTES, hookProblem, receiveWebhook, type WebhookRequest, type WebhookResponse } from "../services/webhooks/receive-webhook";

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
export const DEFAULT_WEBHOOK_OUTCOME_GRACE_MS = 5_000;

export interface DeliverOptions {
  maxBytes?: number;
  /** Answer 503 when the delivery's commit has not started by then; wait `outcomeGraceMs` more for one that is pending. */
  timeoutMs?: number;
  /** How long past `timeoutMs` a pending commit may take to settle before the delivery gets no answer. */
  outcomeGraceMs?: number;
  /** Default tolerance of timestamped signatures, in seconds (CONVEYOR_WEBHOOK_SIGNATURE_TOLERANCE_S). */
  signatureToleranceS?: number;
}

/** Close the connection without a response: whether the delivery was stored is not known. */
export interface NoAnswer {
  noAnswer: true;
  reason: string;
}

export type DeliverOutcome = WebhookResponse | NoAnswer;

export function isNoAnswer(r: DeliverOutcome): r is NoAnswer {
  return "noAnswer" in r;
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

function after<T>(ms: number, value: () => T): { promise: Promise<T>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(value()), ms)));
  return { promise, cancel: () => clearTimeout(timer) };
}

export async function deliverWebhook(deps: AppDeps, req: WebhookRequest, opts: DeliverOptions = {}): Promise<DeliverOutcome> {
  if (impossibleToken(req.token)) return hookProblem("not_found", "No active webhook at this URL.");
  const timeoutMs = opts.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const graceMs = opts.outcomeGraceMs ?? DEFAULT_WEBHOOK_OUTCOME_GRACE_MS;
  let committing = false;
  let gaveUp = false;
  const beforeCommit = () => {
    if (gaveUp) throw new Error("the delivery was answered 503 before its commit started");
    committing = true;
  };
  const received: Promise<DeliverOutcome> = receiveWebhook(deps, req, {
    maxBytes: opts.maxBytes ?? DEFAULT_WEBHOOK_MAX_BYTES,
    beforeCommit,
    signatureToleranceS: opts.signatureToleranceS,
  }).catch((e: unknown) => {
    if (isCommitOutcomeUnknown(e)) {
      deps.log.error("webhook delivery's commit outcome unknown: closing without an answer", { error: e.message });
      return { noAnswer: true, reason: "the commit's outcome is unknown" };
    }
    deps.log.error("webhook delivery not stored", { error: (e as Error).message });
    return notStored("the database did not answer");
  });
  const deadline = after(timeoutMs, () => (committing ? undefined : ((gaveUp = true), notStored(`it was not committed within ${timeoutMs} ms`))));
  try {
    const first = await Promise.race([received, deadline.promise]);
    if (first) {
      if (gaveUp) deps.log.error("webhook delivery not committed in time", { timeoutMs });
      return first;
    }
  } finally {
    deadline.cancel();
  }
  // The commit is pending at the timeout: it may still land. Wait for its outcome up to the grace.
  deps.log.warn("webhook delivery's commit pending at the timeout: waiting for its outcome", { timeoutMs, graceMs });
  const bound = after(graceMs, (): DeliverOutcome => {
    deps.log.error("webhook delivery's commit still pending: closing without an answer", { timeoutMs, graceMs });
    return { noAnswer: true, reason: `the commit did not settle within ${timeoutMs + graceMs} ms` };
  });
  try {
    return await Promise.race([received, bound.promise]);
  } finally {
    bound.cancel();
  }
}
