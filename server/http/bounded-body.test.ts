/** readBodyWithin / withBoundedBody: what the tRPC and next-auth route handlers read bodies through. */
import { expect, it } from "vitest";
import { readBodyWithin, withBoundedBody } from "./bounded-body";

function endless() {
  const pulled = { bytes: 0, cancelled: false };
  const chunk = new TextEncoder().encode("csrfToken=" + "x".repeat(16 * 1024));
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      pulled.bytes += chunk.byteLength;
      c.enqueue(chunk);
    },
    cancel() {
      pulled.cancelled = true;
    },
  });
  return { body, pulled };
}
const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request("http://conveyor.test/api/auth/callback/credentials", { method: "POST", body, headers, duplex: "half" } as RequestInit);

it("an endless sign-in form is cut just past the limit and the stream cancelled", async () => {
  const { body, pulled } = endless();
  expect(await withBoundedBody(post(body, { "content-type": "application/x-www-form-urlencoded" }), 64 * 1024)).toBeNull();
  expect(pulled.cancelled).toBe(true);
  expect(pulled.bytes).toBeLessThan(64 * 1024 + 4 * 16 * 1024);
  expect(await readBodyWithin(post("x", { "content-length": String(64 * 1024 + 1) }), 64 * 1024)).toBeNull();
});

it("a body within the limit reaches the handler unchanged; requests without a body are passed as they are", async () => {
  const form = "email=a%40example.com&password=correct+horse&csrfToken=abc";
  const out = (await withBoundedBody(post(form, { "content-type": "application/x-www-form-urlencoded" }), 64 * 1024))!;
  expect(out.text).toBe(form);
  expect(out.request.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
  expect(Object.fromEntries(new URLSearchParams(await out.request.text()))).toMatchObject({ email: "a@example.com", password: "correct horse" });
  const get = new Request("http://conveyor.test/api/auth/session");
  expect((await withBoundedBody(get, 10))!.request).toBe(get);
});
