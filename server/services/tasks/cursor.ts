/** Opaque cursors: base64url JSON of the last item's sort key. A bad cursor is a 400, not an empty page. */
import { AppError } from "../../errors";

export function encodeCursor(key: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(key), "utf8").toString("base64url");
}

type CursorFields = Record<string, "string" | "number">;
export type DecodedCursor<F extends CursorFields> = { [K in keyof F]: F[K] extends "string" ? string : number };

export function decodeCursor<const F extends CursorFields>(cursor: string | undefined, fields: F): DecodedCursor<F> | null {
  if (cursor === undefined || cursor === "") return null;
  const bad = () => new AppError("bad_request", "The cursor is not valid; pass the `nextCursor` of a previous page unchanged.", [{ path: "cursor", message: "Invalid cursor" }]);
  let value: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
  if (!value || typeof value !== "object") throw bad();
  for (const [k, t] of Object.entries(fields)) if (typeof (value as Record<string, unknown>)[k] !== t) throw bad();
  return value as DecodedCursor<F>;
}
