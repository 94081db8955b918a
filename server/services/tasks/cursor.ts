/**
 * Opaque pagination cursors: base64url JSON of the last item's sort key plus a truncated HMAC
 * (SecretBox.mac, key derived from the installation's secret key) over the payload and the list it
 * pages (`scope`: e.g. `orders:<workspaceId>`). A cursor the service did not issue for this list
 * (forged, edited, from another installation, or another list's, workspace's or task's) is a 400,
 * never a page: an orders cursor given to the lines list answered an empty last page.
 */
import { timingSafeEqual } from "node:crypto";
import type { SecretBox } from "../../crypto/secret-box";
import { AppError } from "../../errors";

const TAG_BYTES = 12;

function tagOf(box: Pick<SecretBox, "mac">, scope: string, payload: string): Buffer {
  return box.mac("cursor", `${scope}\n${payload}`).subarray(0, TAG_BYTES);
}

export function encodeCursor(box: Pick<SecretBox, "mac">, scope: string, key: Record<string, string | number>): string {
  const payload = Buffer.from(JSON.stringify(key), "utf8").toString("base64url");
  return `${payload}.${tagOf(box, scope, payload).toString("base64url")}`;
}

type CursorFields = Record<string, "string" | "number">;
export type DecodedCursor<F extends CursorFields> = { [K in keyof F]: F[K] extends "string" ? string : number };

export function decodeCursor<const F extends CursorFields>(
  box: Pick<SecretBox, "mac">,
  scope: string,
  cursor: string | undefined,
  fields: F,
): DecodedCursor<F> | null {
  if (cursor === undefined || cursor === "") return null;
  const bad = () =>
    new AppError(
      "bad_request",
      "The cursor is not valid for this list; pass the `nextCursor` of this list's previous page unchanged (a cursor of another list, workspace or task is refused).",
      [{ path: "cursor", message: "Not a cursor of this list" }],
    );
  const m = /^([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{16})$/.exec(cursor);
  if (!m) throw bad();
  const [, payload, tag] = m as unknown as [string, string, string];
  const expected = tagOf(box, scope, payload);
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
