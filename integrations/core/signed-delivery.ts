/**
 * Webhook signatures, for every door that checks one (webhook intakes, `core.webhook` in HMAC mode).
 *
 * Two schemes in the same header (docs/security.md, "Webhook signatures"):
 * - **timestamped**: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` (several `v1=` may
 *   be given, e.g. while a secret is rotated; unknown `key=value` parts are ignored). The time must be
 *   within the tolerance of this server's clock, and a `v1` value is accepted once (the caller stores
 *   `replay` with the delivery; a second delivery with it is refused as a replay).
 * - **body-only** (legacy): `sha256=<hex HMAC-SHA256 of the raw body>` or the bare hex, accepted unless
 *   the webhook requires the timestamped scheme.
 *
 * Messages say which check failed (malformed, bad signature, too old, in the future, required) and
 * never carry the secret or the expected value.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** How far a signature's timestamp may be from this server's clock, either way, by default. */
export const DEFAULT_SIGNATURE_TOLERANCE_S = 300;
export const MIN_SIGNATURE_TOLERANCE_S = 5;
/** The largest tolerance a webhook may set; used signatures are kept this long past their window. */
export const MAX_SIGNATURE_TOLERANCE_S = 3600;

export interface SignatureCheck {
  /** The header's value ("" when absent). */
  header: string;
  /** The header's name, for messages. */
  headerName: string;
  rawBody: Buffer;
  secret: string;
  nowMs: number;
  toleranceS: number;
  /** Refuse body-only signatures (and, where the caller accepts one, bearer secrets). */
  requireTimestamp: boolean;
}

/** A timestamped signature that verified: remember `signature` until `expiresAtMs` (replays). */
export interface AcceptedSignature {
  signature: string;
  expiresAtMs: number;
}

export type SignatureResult = { ok: true; replay?: AcceptedSignature } | { ok: false; message: string };

const HEX64 = /^[0-9a-f]{64}$/;

function safeEqualHex(given: string, expected: string): boolean {
  const x = Buffer.from(given);
  const y = Buffer.from(expected);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The `v1` value of a delivery signed at `t` (unix seconds): what a sender puts in the header. */
export function timestampedSignature(secret: string, rawBody: Buffer | string, t: number): string {
  return createHmac("sha256", secret).update(`${t}.`).update(rawBody).digest("hex");
}

/** The whole header value for a delivery signed at `t` (unix seconds). */
export function signatureHeader(secret: string, rawBody: Buffer | string, t: number): string {
  return `t=${t},v1=${timestampedSignature(secret, rawBody, t)}`;
}

/** Whether a header value uses the timestamped scheme (it has a `t=` part). */
export function isTimestamped(header: string): boolean {
  return /(^|,)\s*t=/.test(header);
}

export function requiredMessage(headerName: string): string {
  return `This webhook requires a timestamped signature: ${headerName}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the secret>. A bearer secret or a body-only sha256= signature is not accepted.`;
}

/** Checks a body-only or timestamped signature (see the module comment). */
export function checkSignature(c: SignatureCheck): SignatureResult {
  const header = c.header.trim();
  if (!isTimestamped(header)) {
    if (c.requireTimestamp) return { ok: false, message: requiredMessage(c.headerName) };
    const given = header.replace(/^sha256=/i, "").toLowerCase();
    const expected = createHmac("sha256", c.secret).update(c.rawBody).digest("hex");
    if (given && safeEqualHex(given, expected)) return { ok: true };
    return { ok: false, message: `Missing or wrong HMAC-SHA256 signature in ${c.headerName}.` };
  }
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === "t") t = /^\d{1,12}$/.test(v) && t === undefined ? Number(v) : NaN;
    else if (k === "v1") v1.push(v.toLowerCase());
  }
  if (t === undefined || Number.isNaN(t) || !v1.length || v1.length > 8 || !v1.every((v) => HEX64.test(v)))
    return {
      ok: false,
      message: `Malformed signature: ${c.headerName} must be t=<unix seconds>,v1=<64 hex digits of HMAC-SHA256 of "<t>.<raw body>">.`,
    };
  const expected = timestampedSignature(c.secret, c.rawBody, t);
  const match = v1.find((v) => safeEqualHex(v, expected));
  if (!match)
    return {
      ok: false,
      message: `Bad signature: no v1 value in ${c.headerName} is the HMAC-SHA256 of "<t>.<raw body>" under this webhook's secret (the body or t= changed after signing, or another secret was used).`,
    };
  const ageMs = c.nowMs - t * 1000;
  if (ageMs > c.toleranceS * 1000)
    return {
      ok: false,
      message: `Signature too old: t=${t} is ${Math.floor(ageMs / 1000)} s before this server's time; at most ${c.toleranceS} s is accepted. Sign each delivery (retries too) when it is sent, and check the sender's clock.`,
    };
  if (-ageMs > c.toleranceS * 1000)
    return {
      ok: false,
      message: `Signature timestamp in the future: t=${t} is ${Math.floor(-ageMs / 1000)} s after this server's time; at most ${c.toleranceS} s is accepted. Check the sender's clock.`,
    };
  return { ok: true, replay: { signature: match, expiresAtMs: (t + c.toleranceS) * 1000 } };
}

export function replayMessage(): string {
  return "Replayed delivery: a delivery with this signature was already accepted. Sign each delivery (retries too) afresh with the current time; a delivery id header (Idempotency-Key) makes a retry a duplicate instead.";
}

/** A tolerance setting, bounded, or the default. */
export function toleranceOf(seconds: unknown, fallback: number): number {
  return typeof seconds === "number" && Number.isInteger(seconds) && seconds >= MIN_SIGNATURE_TOLERANCE_S && seconds <= MAX_SIGNATURE_TOLERANCE_S
    ? seconds
    : fallback;
}
