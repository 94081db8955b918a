/**
 * Opaque pagination cursors: base64url JSON of the last item's sort key plus a truncated HMAC
 * (SecretBox.mac, key derived from the installation's secret key). A cursor the service did not
 * issue (forged, edited, from another installation) is a 400, never a page.
 */
import { timingSafeEqual } from "node:crypto";
import type { SecretBox } from "../../crypto/secret-box";
import { AppError } from "../../errors";

const TAG_BYTES = 12;

export function encodeCursor(box: Pick<SecretBox, "mac">, key: Record<string, string | number>): string {
  const payload = Buffer.from(JSON.stringify(key), "utf8").toString("base64url");
  return `${payload}.${box.mac("cursor", payload).subarray(0, TAG_BYTES).toString("base64url")}`;
}

type CursorFields = Record<string, "string" | "number">;
export type DecodedCursor<F extends CursorFields> = { [K in keyof F]: F[K] extends "string" ? string : number };

export function decodeCursor<const F extends CursorFields>(box: Pick<SecretBox, "mac">, cursor: string | undefined, fields: F): DecodedCursor<F> | null {
  if (cursor === undefined || cursor === "") return null;
  const bad = () =>
    new AppError("bad_request", "The cursor is not valid; pass the `nextCursor` of a previous page unchanged.", [
      { path: "cursor", message: "Invalid cursor" },
    ]);
  const m = /^([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{16})$/.exec(cursor);
  if (!m) throw bad();
  const [, payload, tag] = m as unknown as [string, string, string];
  const expected = box.mac("cursor", payload).subarray(0, TAG_BYTES);
  const given = Buffer.from(tag, "base64url");
  if (given.length !== TAG_BYTES || !timingSafeEqual(given, expected)) throw bad();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
  if (!value || typeof value !== "object") throw bad();
  for (const [k, t] of Object.entries(fields)) if (typeof (value as Record<string, unknown>)[k] !== t) throw bad();
  return value as DecodedCursor<F>;
}
