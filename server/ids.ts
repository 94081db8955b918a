import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** Random id with a type prefix: `aut_3k9x…` (16 base-36 chars ≈ 82 bits). */
export function newId(prefix: string, length = 16): string {
  const bytes = randomBytes(length);
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i]! % 36];
  return `${prefix}_${out}`;
}

/** URL-safe unguessable token (256 bits) for webhook URLs and invitations. */
export function newToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/** The caller's `X-Request-Id` when it is a sane token (echoed, for their logs), else a new one. */
export function requestIdFrom(incoming: string | null | undefined): string {
  return incoming && /^[\w.:-]{1,100}$/.test(incoming) ? incoming : newId("req");
}

export const nowIso = () => new Date().toISOString();
