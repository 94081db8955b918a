/**
 * Reads a route handler's request body within a byte limit. Next.js route handlers read bodies
 * whole with no limit (`req.text()`, `req.json()`): one request streaming gigabytes grows the
 * process until V8 aborts it. The editor's door (tRPC), next-auth's endpoints, REST
 * (server/rest/read-body.ts) and the Next route of `/hooks` (used when Next serves it without
 * server/main.ts) read through this; the lean `/hooks` listener reads node:http streams with its own cap.
 */

/** The body's bytes, or null once it is over `maxBytes` (reading stops there and the stream is cancelled). */
export async function readBytesWithin(req: Request, maxBytes: number): Promise<Buffer | null> {
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) return null;
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The body as text, or null once it is over `maxBytes`. */
export async function readBodyWithin(req: Request, maxBytes: number): Promise<string | null> {
  return (await readBytesWithin(req, maxBytes))?.toString("utf8") ?? null;
}

/** The same request with its body read once within `maxBytes` (null when over it); requests without a body are returned as they are. */
export async function withBoundedBody(req: Request, maxBytes: number): Promise<{ request: Request; text: string } | null> {
  if (req.method === "GET" || req.method === "HEAD" || !req.body) return { request: req, text: "" };
  const text = await readBodyWithin(req, maxBytes);
  if (text === null) return null;
  return { request: new Request(req.url, { method: req.method, headers: req.headers, body: text, signal: req.signal }), text };
}
