/**
 * Webhook ingress through Next.js (route handlers called in process); `npm start` and `npm run dev`
 * answer /hooks/* in the lean listener (server/webhooks/lean-listener.ts) before Next sees them.
 * Same service either way, including 503 + Retry-After when the delivery is known not to be stored
 * and no answer when its commit outcome is unknown (server/webhooks/deliver.ts).
 */
import { getDeps } from "@/server/deps";
import { hookProblem } from "@/server/services/webhooks/receive-webhook";
import { deliverWebhook, isNoAnswer, type DeliverOutcome } from "@/server/webhooks/deliver";
import { readBytesWithin } from "@/server/http/bounded-body";

/**
 * No answer: a body that fails before its first byte. Next flushes the status line and headers only
 * with the first chunk, and destroys the socket when the body fails, so the sender sees the
 * connection close without a response (as when an ingress dies mid-request).
 */
function noAnswer(reason: string): Response {
  const body = new ReadableStream({ start: (c) => c.error(new Error(`no answer: ${reason}`)) });
  return new Response(body, { status: 503, headers: { "content-type": "application/json" } });
}

function toResponse(r: DeliverOutcome): Response {
  if (isNoAnswer(r)) return noAnswer(r.reason);
  return new Response(JSON.stringify(r.body), { status: r.status, headers: { "content-type": "application/json", ...r.headers } });
}

export const dynamic = "force-dynamic";

async function handle(request: Request, ctx: { params: Promise<{ token: string }> }): Promise<Response> {
  const { token } = await ctx.params;
  const { env } = await import("@/server/env");
  const maxBytes = env.CONVEYOR_WEBHOOK_MAX_BYTES;
  const rawBody = await readBytesWithin(request, maxBytes);
  if (!rawBody) return toResponse(hookProblem("payload_too_large", `The body is over the limit of ${maxBytes} bytes.`));
  const headers: Record<string, string> = {};
  request.headers.forEach((v, k) => (headers[k] = v));
  const url = new URL(request.url);
  const query: Record<string, string> = {};
  url.searchParams.forEach((v, k) => (query[k] = v));
  const r = await deliverWebhook(
    await getDeps(),
    { token, method: request.method, headers, query, rawBody },
    {
      maxBytes,
      timeoutMs: env.CONVEYOR_WEBHOOK_TIMEOUT_MS,
      outcomeGraceMs: env.CONVEYOR_WEBHOOK_OUTCOME_GRACE_MS,
      signatureToleranceS: env.CONVEYOR_WEBHOOK_SIGNATURE_TOLERANCE_S,
    },
  );
  return toResponse(r);
}

export const POST = handle;
export const GET = handle;
export const PUT = handle;
