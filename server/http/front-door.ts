/**
 * Checks made on the raw request before any router sees it (server/main.ts, and the in-process REST
 * test client so the fuzz suite exercises the same code): a path with broken percent-encoding
 * (`/api/v1/factories/%ZZ`) is a client mistake, answered 400 problem+json, where Next.js would
 * throw while decoding route params and answer 500; so is a NUL character (`%00`), which no stored
 * field can hold (PostgreSQL text refuses it). An API path with a trailing slash
 * (`/api/v1/factories/`) is answered 308 to the path without it, with a problem+json body naming it:
 * Next.js would answer its own 308 with an empty body, leaving a client that does not follow redirects
 * (curl without -L, many SDKs for POST) with nothing to read. Pages keep Next's redirect.
 */
import { PROBLEM_BASE, problemResponse } from "../rest/problem";
import { requestIdFrom } from "../ids";
import { NUL_MESSAGE } from "./json-depth";

export function malformedPathResponse(rawUrl: string, incomingRequestId?: string | null): Response | null {
  const q = rawUrl.indexOf("?");
  const pathname = q < 0 ? rawUrl : rawUrl.slice(0, q);
  if (/%00/.test(rawUrl) || rawUrl.includes("\u0000")) {
    return problemResponse("bad_request", NUL_MESSAGE, {
      instance: pathname.slice(0, 200),
      requestId: requestIdFrom(incomingRequestId),
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
        requestId: requestIdFrom(incomingRequestId),
        errors: [{ path: "path", message: "Invalid percent-encoding" }],
      });
    }
  }
  return null;
}

const API_PREFIX = "/api/v1";

/** 308 from `/api/v1/…/` to `/api/v1/…` (query kept): the same method and body are to be sent there. */
export function trailingSlashResponse(rawUrl: string, incomingRequestId?: string | null): Response | null {
  const q = rawUrl.indexOf("?");
  const pathname = q < 0 ? rawUrl : rawUrl.slice(0, q);
  if (!pathname.startsWith(API_PREFIX + "/") || !pathname.endsWith("/")) return null;
  const canonical = pathname.replace(/\/+$/, "") + (q < 0 ? "" : rawUrl.slice(q));
  const requestId = requestIdFrom(incomingRequestId);
  const body = {
    type: PROBLEM_BASE + "trailing_slash",
    title: "Permanent redirect",
    status: 308,
    detail: `API paths have no trailing slash: send the same request to ${canonical}.`,
    code: "trailing_slash",
    instance: pathname.length > 200 ? pathname.slice(0, 200) + "…" : pathname,
    location: canonical,
    requestId,
  };
  return new Response(JSON.stringify(body), {
    status: 308,
    headers: { "content-type": "application/problem+json", location: canonical, "x-request-id": requestId },
  });
}

/**
 * What the custom server answers itself before any router sees the request, or null to pass it on.
 * Echoes the caller's X-Request-Id as the API's own answers do.
 */
export function frontDoorResponse(rawUrl: string, incomingRequestId?: string | null): Response | null {
  return malformedPathResponse(rawUrl, incomingRequestId) ?? trailingSlashResponse(rawUrl, incomingRequestId);
}
