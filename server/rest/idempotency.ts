/**
 * `Idempotency-Key` on creating POSTs: the first successful response is stored for 24 h per API
 * key; a repeat with the same request returns it again (`Idempotent-Replayed: true`), the same
 * key with a different request is a 422, and a repeat while the first is in flight is a 409.
 * The key is claimed in the database before the request runs, so this holds across processes
 * (scale-out mode); a claim whose process died is given up after IDEMPOTENCY_STALE_MS.
 */
import { createHash } from "node:crypto";
import type { Store } from "@/db/store";
import { AppError } from "../errors";

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
/** A claim older than this belongs to a request that will never finish (its process died). */
export const IDEMPOTENCY_STALE_MS = 5 * 60_000;

export function requestHash(method: string, path: string, rawBody: string): string {
  return createHash("sha256").update(`${method}\n${path}\n${rawBody}`).digest("hex");
}

export function checkIdempotencyKey(value: string): string {
  if (!/^[\x21-\x7e]{1,255}$/.test(value)) {
    throw new AppError("bad_request", "Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is a good choice).", [
      { path: "Idempotency-Key", message: "1–255 visible ASCII characters" },
    ]);
  }
  return value;
}

export async function withIdempotency(
  store: Store,
  opts: { apiKeyId: string; key: string; method: string; path: string; rawBody: string; now: number },
  run: () => Promise<Response>,
): Promise<Response> {
  const bodyHash = requestHash(opts.method, opts.path, opts.rawBody);
  const claim = await store.idempotency.claim(
    { apiKeyId: opts.apiKeyId, key: opts.key, method: opts.method, path: opts.path, bodyHash, now: opts.now },
    { expiredBefore: opts.now - IDEMPOTENCY_TTL_MS, staleBefore: opts.now - IDEMPOTENCY_STALE_MS },
  );
  if (claim.kind === "stored") {
    const prior = claim.row;
    if (prior.bodyHash !== bodyHash) {
      throw new AppError("unprocessable", "This Idempotency-Key was already used with a different request (method, path or body); use a new key.", [
        { path: "Idempotency-Key", message: "Reused with a different request" },
      ]);
    }
    return new Response(prior.response, {
      status: prior.status,
      headers: { "content-type": "application/json", "idempotent-replayed": "true" },
    });
  }
  if (claim.kind === "pending") throw new AppError("conflict", "A request with this Idempotency-Key is still being processed; retry shortly.");
  let res: Response;
  try {
    res = await run();
  } catch (e) {
    await store.idempotency.release(opts.apiKeyId, opts.key, claim.createdAt).catch(() => undefined);
    throw e;
  }
  if (res.status >= 200 && res.status < 300) {
    const text = await res.clone().text();
    await store.idempotency.purgeExpired(opts.now - IDEMPOTENCY_TTL_MS);
    await store.idempotency.complete(opts.apiKeyId, opts.key, claim.createdAt, { status: res.status, response: text });
  } else {
    await store.idempotency.release(opts.apiKeyId, opts.key, claim.createdAt);
  }
  return res;
}
