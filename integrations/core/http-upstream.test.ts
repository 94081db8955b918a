/**
 * Hostile upstreams against the one outbound client (http.ts), on loopback: bodies that never end or
 * drip a byte at a time, compression bombs, invalid UTF-8, header floods. Every case ends within
 * the request's deadline or size cap with a classified error (retryable or not, naming the call);
 * before, a body that stalled after its headers ended in an anonymous, non-retryable
 * "The operation was aborted due to timeout".
 */
import { EventEmitter } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpClient } from "./http";
import { NonRetryableError, RetryableError, isRetryable } from "./errors";

const BOMB = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x61)); // 64 MiB of "a" in ~64 KiB
let server: http.Server;
/** Emits `chunks` with the path once the server has written three body chunks of a drip (the client is reading the body by then). */
const progress = new EventEmitter();
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const drip = (ms: number) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write("[");
      let n = 0;
      const t = setInterval(() => {
        res.write("1,");
        if (++n === 3) progress.emit("chunks", req.url);
      }, ms);
      res.on("close", () => clearInterval(t));
    };
    switch (req.url) {
      case "/stall":
        return drip(60_000);
      case "/drip":
        return drip(20);
      case "/bomb":
        res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
        return res.end(BOMB);
      case "/bomb-nested":
        res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip, gzip" });
        return res.end(zlib.gzipSync(BOMB));
      case "/not-utf8":
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]));
      case "/header-flood": {
        const h: Record<string, string> = {};
        for (let i = 0; i < 2000; i++) h[`x-h${i}`] = "v".repeat(100);
        res.writeHead(200, h);
        return res.end("ok");
      }
      default:
        res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const failure = (p: Promise<unknown>) => p.then(() => expect.fail("the request succeeded"), (e: unknown) => e as Error);

describe("hostile upstream responses", () => {
  it("a body that stalls after its headers is a named, retryable timeout at the request's deadline", async () => {
    const started = Date.now();
    const e = await failure(createHttpClient({ baseUrl: base, timeoutMs: 400 }).get("/stall"));
    expect(e).toBeInstanceOf(RetryableError);
    expect(e.message).toBe(`GET ${base}/stall timed out after 400 ms while reading the response`);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("a slow drip does not reset the clock: the deadline covers the whole response", async () => {
    const e = await failure(createHttpClient({ baseUrl: base, timeoutMs: 400 }).get("/drip"));
    expect(e).toBeInstanceOf(RetryableError);
    expect(e.message).toMatch(/timed out after 400 ms while reading the response$/);
  });

  it("cancelling while the body is read is a cancellation, not a timeout", async () => {
    const ac = new AbortController();
    const client = createHttpClient({ baseUrl: base, timeoutMs: 10_000, signal: ac.signal });
    progress.once("chunks", () => ac.abort());
    const pending = failure(client.get("/drip"));
    const e = await pending;
    expect(e).toBeInstanceOf(NonRetryableError);
    expect(e.message).toBe("Cancelled");
  });

  it("compression bombs stop at the size cap of the decoded body, nested encodings included", async () => {
    const client = createHttpClient({ baseUrl: base, maxResponseBytes: 1024 * 1024 });
    for (const path of ["/bomb", "/bomb-nested"]) {
      const e = await failure(client.get(path));
      expect(e, path).toBeInstanceOf(NonRetryableError);
      expect(e.message).toBe("Upstream response exceeds the 1048576-byte limit");
    }
  });

  it("invalid UTF-8 becomes replacement characters, not an error", async () => {
    const r = await createHttpClient({ baseUrl: base }).get<{ a: string }>("/not-utf8");
    expect(r.body.a).toBe("\uFFFD\uFFFD\uFFFD");
  });

  it("a header flood is refused by the parser as a retryable network failure", async () => {
    const e = await failure(createHttpClient({ baseUrl: base }).get("/header-flood"));
    expect(isRetryable(e)).toBe(true);
    expect(e.message).toBe(`GET ${base}/header-flood failed: UND_ERR_HEADERS_OVERFLOW`);
  });
});
