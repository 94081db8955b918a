"use client";
/**
 * What an editor page shows instead of Next's bare error page when its server code failed. The
 * database not answering (scale-out: PostgreSQL down) says so and retries by itself every few
 * seconds; anything else is "something went wrong" with the reference to quote. Neither shows a
 * message or stack: in production the browser only ever receives the digest (page-error-kind.ts).
 */
import { useEffect } from "react";
import { DB_UNAVAILABLE_TITLE, PAGE_RETRY_S, pageErrorKind } from "./page-error-kind";

export interface PageErrorProps {
  error: Error & { digest?: string };
  /** Next's boundary `retry` (fetches the page from the server again and re-renders it). */
  retry: () => void;
}

export function PageError({ error, retry }: PageErrorProps) {
  const kind = pageErrorKind(error);
  useEffect(() => {
    if (kind !== "database-unavailable") return;
    const timer = setTimeout(retry, PAGE_RETRY_S * 1000);
    return () => clearTimeout(timer);
  }, [kind, retry, error]);
  const unavailable = kind === "database-unavailable";
  return (
    <main className="flex min-h-full flex-1 items-center justify-center p-6">
      <div className="card max-w-md space-y-3 p-6 text-center" role="alert" data-testid="page-error" data-kind={kind}>
        <h1>{unavailable ? DB_UNAVAILABLE_TITLE : "Something went wrong"}</h1>
        <p className="text-sm text-muted">
          {unavailable
            ? `This page retries by itself every ${PAGE_RETRY_S} seconds and opens as soon as the database answers again; if it does not, ask your administrator to check the database server.`
            : "This page could not be shown because of a problem on our side. Try again; if it keeps happening, report it with the reference below."}
        </p>
        <button type="button" className="btn btn-primary" onClick={retry} data-testid="page-error-retry">
          Try again
        </button>
        {error.digest ? (
          <p className="text-xs text-muted" data-testid="page-error-reference">
            Reference: <code>{error.digest}</code>
          </p>
        ) : null}
      </div>
    </main>
  );
}
