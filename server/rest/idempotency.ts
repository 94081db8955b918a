/**
 * `Idempotency-Key` on creating POSTs: the first successful response is stored for 24 h per API
 * key; a repeat with the same request returns it again (`Idempotent-Replayed: true`), the same
 * key with a different request is a 422, and a repeat while the first is in flight is a 409.
 */
import { createHash } from "node:crypto";
import { and, eq, lt } from "drizzle-orm";
import { idempotencyKeys } from "@/db/schema";
import type { Db } from "@/db/client";
import { AppError } from "../errors";

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
const inFlight = new Set<string>();

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
  db: Db,
  opts: { apiKeyId: string; key: string; method: string; path: string; rawBody: string; now: number },
  run: () => Promise<Response>,
): Promise<Response> {
  const bodyHash = requestHash(opts.method, opts.path, opts.rawBody);
  const where = and(eq(idempotencyKeys.apiKeyId, opts.apiKeyId), eq(idempotencyKeys.key, opts.key));
  const prior = db.select().from(idempotencyKeys).where(where).get();
  if (prior && opts.now - prior.createdAt < IDEMPOTENCY_TTL_MS) {
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
  const flightKey = `${opts.apiKeyId}\n${opts.key}`;
  if (inFlight.has(flightKey)) throw new AppError("conflict", "A request with this Idempotency-Key is still being processed; retry shortly.");
  inFlight.add(flightKey);
  try {
    const res = await run();
    if (res.status >= 200 && res.status < 300) {
      const text = await res.clone().text();
      db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, opts.now - IDEMPOTENCY_TTL_MS)).run();
      db.insert(idempotencyKeys)
        .values({ apiKeyId: opts.apiKeyId, key: opts.key, method: opts.method, path: opts.path, bodyHash, status: res.status, response: text, createdAt: opts.now })
        .onConflictDoUpdate({ target: [idempotencyKeys.apiKeyId, idempotencyKeys.key], set: { method: opts.method, path: opts.path, bodyHash, status: res.status, response: text, createdAt: opts.now } })
        .run();
    }
    return res;
  } finally {
    inFlight.delete(flightKey);
  }
}
