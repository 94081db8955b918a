"use client";
/**
 * What a page that loads its data in the browser (runs, tasks, automations, usage) shows while the
 * database does not answer: the same message as a server-rendered page (page-error.tsx), inline,
 * above whatever the page last showed. The query retries by itself every PAGE_RETRY_S seconds
 * (`databaseRetryInterval` in the query client's defaults) and the notice goes away with the first
 * answer.
 */
import { DB_UNAVAILABLE_APP_CODE, DB_UNAVAILABLE_TITLE, PAGE_RETRY_S } from "./page-error-kind";

/** Whether a tRPC error says the database did not answer (server/trpc/trpc.ts sets the code). */
export function isDatabaseUnavailableError(error: unknown): boolean {
  return (error as { data?: { appCode?: unknown } } | null | undefined)?.data?.appCode === DB_UNAVAILABLE_APP_CODE;
}

/** The query client's default `refetchInterval`: a query that failed because the database did not answer is asked again every few seconds. */
export function databaseRetryInterval(query: { state: { error: unknown } }): number | false {
  return isDatabaseUnavailableError(query.state.error) ? PAGE_RETRY_S * 1000 : false;
}

/** The notice when any of `errors` is the database not answering; nothing otherwise. */
export function DatabaseUnavailable({ errors }: { errors: unknown[] }) {
  if (!errors.some(isDatabaseUnavailableError)) return null;
  return (
    <div className="card mb-4 space-y-1 p-4" role="alert" data-testid="database-unavailable">
      <h2>{DB_UNAVAILABLE_TITLE}</h2>
      <p className="text-sm text-muted">
        {`This page retries by itself every ${PAGE_RETRY_S} seconds and fills in as soon as the database answers again; if it does not, ask your administrator to check the database server.`}
      </p>
    </div>
  );
}
