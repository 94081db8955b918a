/**
 * What kind of failure an editor page's error boundary shows, read from the error's digest: the one
 * detail Next.js keeps when a server component throws in production (the message and stack are
 * stripped before they reach the browser). Server code marks "the database did not answer" with
 * this prefix (server/http/page-errors.ts); every other digest is an unexpected error.
 */
export const DB_UNAVAILABLE_DIGEST_PREFIX = "conveyor-db-unavailable:";

/** What a page or list says when the database did not answer. */
export const DB_UNAVAILABLE_TITLE = "Conveyor cannot reach its database right now";

/** `data.appCode` of a tRPC error whose cause is the database not answering (server/trpc/trpc.ts). */
export const DB_UNAVAILABLE_APP_CODE = "database_unavailable";

/** Seconds between the automatic retries of a page that could not reach the database. */
export const PAGE_RETRY_S = 5;

export type PageErrorKind = "database-unavailable" | "unexpected";

export function pageErrorKind(error: { digest?: string } | null | undefined): PageErrorKind {
  return typeof error?.digest === "string" && error.digest.startsWith(DB_UNAVAILABLE_DIGEST_PREFIX) ? "database-unavailable" : "unexpected";
}
