/**
 * What the editor's door (`/api/trpc`, app/api/trpc/[trpc]/route.ts) refuses before tRPC reads a
 * request: a body over MAX_TRPC_BYTES (413; before, the whole body was buffered whatever its size,
 * twice, and before the session was looked at, so one anonymous request could exhaust the process's
 * memory), inputs nested deeper than REST and webhooks allow, and NUL characters (400).
 */
import { withBoundedBody } from "../http/bounded-body";
import { hasNulEscape, jsonDepth, MAX_JSON_DEPTH, NUL_MESSAGE, tooDeepMessage } from "../http/json-depth";

/** Largest editor request: an automation with 4 MiB of pinned data (MAX_PINNED_TOTAL_BYTES) and its graph fits well within. */
export const MAX_TRPC_BYTES = 16 * 1024 * 1024;

const refuse = (status: number, message: string, code: string) => ({ refused: Response.json({ error: { message, code } }, { status }) });

/** The request to hand to tRPC (its body read once, within the limit), or the refusal to answer instead. */
export async function screenTrpcRequest(req: Request, maxBytes = MAX_TRPC_BYTES): Promise<{ request: Request } | { refused: Response }> {
  const bounded = await withBoundedBody(req, maxBytes);
  if (!bounded) return refuse(413, `The request body is over the limit of ${maxBytes} bytes.`, "PAYLOAD_TOO_LARGE");
  const limit = MAX_JSON_DEPTH + 2; // tRPC's own batch/input wrapping
  const texts = [new URL(req.url).searchParams.get("input") ?? "", bounded.text];
  if (texts.some((t) => jsonDepth(t, limit) > limit)) return refuse(400, tooDeepMessage(), "BAD_REQUEST");
  if (texts.some(hasNulEscape)) return refuse(400, NUL_MESSAGE, "BAD_REQUEST");
  return { request: bounded.request };
}
