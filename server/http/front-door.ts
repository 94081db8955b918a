/**
 * Checks made on the raw request before any router sees it (server/main.ts, and the in-process REST
 * test client so the fuzz suite exercises the same code): a path with broken percent-encoding
 * (`/api/v1/factories/%ZZ`) is a client mistake, answered 400 problem+json, where Next.js would
 * throw while decoding route params and answer 500; so is a NUL character (`%00`), which no stored
 * field can hold (PostgreSQL text refuses it).
 */
import { problemResponse } from "../rest/problem";
import { newId } from "../ids";
import { NUL_MESSAGE } from "./json-depth";

export function malformedPathResponse(rawUrl: string): Response | null {
  const q = rawUrl.indexOf("?");
  const pathname = q < 0 ? rawUrl : rawUrl.slice(0, q);
  if (/%00/.test(rawUrl) || rawUrl.includes("\u0000")) {
    return problemResponse("bad_request", NUL_MESSAGE, {
      instance: pathname.slice(0, 200),
      requestId: newId("req"),
      errors: [{ path: "path", message: "NUL character" }],
    });
  }
  for (const segment of pathname.split("/")) {
    if (!segment.includes("%")) continue;
    try {
      decodeURIComponent(segment);
    } catch {
      const shown = pathname.length > 200 ? pathname.slice(0, 200) + "…" : pathname;
      return problemResponse("bad_request", `The path has a broken percent-encoding in "${segment.slice(0, 60)}"; encode "%" as %25.`, {
        instance: shown,
        requestId: newId("req"),
        errors: [{ path: "path", message: "Invalid percent-encoding" }],
      });
    }
  }
  return null;
}
