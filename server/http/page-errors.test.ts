/**
 * Editor pages' server errors reach the browser marked only when the database did not answer
 * (server/http/page-errors.ts; the page's boundary reads the digest: components/errors/page-error-kind.ts).
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { freePort } from "@/db/testing/servers";
import { pageErrorKind } from "@/components/errors/page-error-kind";
import { markPageError, withPageErrors } from "./page-errors";

async function refusedConnection(): Promise<unknown> {
  const client = new pg.Client({ connectionString: `postgres://conveyor@127.0.0.1:${await freePort()}/postgres`, connectionTimeoutMillis: 2000 });
  return client.connect().then(
    () => new Error("unexpectedly connected"),
    (e: unknown) => e,
  );
}

describe("page errors", () => {
  it("a database that refuses connections: marked database-unavailable, with a fresh reference each time", async () => {
    const error = await refusedConnection();
    const marked = markPageError(error) as { digest?: string };
    expect(pageErrorKind(marked)).toBe("database-unavailable");
    expect(marked.digest).toMatch(/^conveyor-db-unavailable:[0-9a-f]{8}$/);
    const again = markPageError(await refusedConnection()) as { digest?: string };
    expect(again.digest).not.toBe(marked.digest);
  });

  it("wrapped as drizzle wraps it (cause chain): still marked", async () => {
    const wrapped = new Error("Failed query: select 1", { cause: await refusedConnection() });
    expect(pageErrorKind(markPageError(wrapped) as { digest?: string })).toBe("database-unavailable");
  });

  it("anything else, and Next's own redirect/not-found signals, pass unchanged", () => {
    const bug = new TypeError("x is undefined");
    expect(markPageError(bug)).toBe(bug);
    expect((bug as { digest?: string }).digest).toBeUndefined();
    const redirect = Object.assign(new Error("NEXT_REDIRECT"), { digest: "NEXT_REDIRECT;replace;/setup;307;" });
    expect(markPageError(redirect)).toBe(redirect);
    expect(redirect.digest).toBe("NEXT_REDIRECT;replace;/setup;307;");
    expect(pageErrorKind(redirect)).toBe("unexpected");
    expect(pageErrorKind({})).toBe("unexpected");
  });

  it("withPageErrors: a page whose query is refused throws the marked error; a page that renders is untouched", async () => {
    const error = await refusedConnection();
    const page = withPageErrors(async () => {
      throw error;
    });
    await expect(page({})).rejects.toMatchObject({ digest: expect.stringMatching(/^conveyor-db-unavailable:/) });
    expect(await withPageErrors(async ({ name }: { name: string }) => `hello ${name}`)({ name: "x" })).toBe("hello x");
  });
});
