/**
 * Editor pages (server components) whose database did not answer: the error is given a digest that
 * says so, so the page's error boundary (app/error.tsx) can tell "cannot reach the database, retrying"
 * from a bug. Next.js keeps a thrown error's own `digest` and strips its message and stack in
 * production, so only this marker (and a random id to quote to support) reaches the browser.
 */
import { randomUUID } from "node:crypto";
import { isDatabaseUnavailable } from "@/db/unavailable";
import { DB_UNAVAILABLE_DIGEST_PREFIX } from "@/components/errors/page-error-kind";

/** The same error, marked when it means the database could not be reached; anything else unchanged. */
export function markPageError(error: unknown): unknown {
  if (!isDatabaseUnavailable(error)) return error;
  const digest = DB_UNAVAILABLE_DIGEST_PREFIX + randomUUID().slice(0, 8);
  const marked = error instanceof Error && Object.isExtensible(error) ? error : new Error("The database did not answer", { cause: error });
  (marked as Error & { digest?: string }).digest = digest;
  return marked;
}

/** A page or layout whose database errors reach its error boundary marked (see markPageError). */
export function withPageErrors<P>(component: (props: P) => Promise<React.ReactNode>): (props: P) => Promise<React.ReactNode> {
  return async (props: P) => {
    try {
      return await component(props);
    } catch (error) {
      throw markPageError(error);
    }
  };
}
