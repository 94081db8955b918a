/**
 * The editor's door read every POST body whole (`req.clone().text()`), before the session was
 * looked at and without a size limit: one anonymous request streaming gigabytes grew the process
 * until it died. It now stops reading past MAX_TRPC_BYTES and answers 413.
 */
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../http/json-depth";
import { MAX_TRPC_BYTES, screenTrpcRequest } from "./screen-request";

const URL_ = "http://conveyor.test/api/trpc/automations.save?batch=1";

/** A body that never ends (64 KiB chunks of JSON-ish text), counting what the reader pulled. */
function endless() {
  const pulled = { bytes: 0, cancelled: false };
  const chunk = new TextEncoder().encode(`{"a":"${"x".repeat(64 * 1024 - 8)}"},`);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled.bytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
    cancel() {
      pulled.cancelled = true;
    },
  });
  return { body, pulled };
}

const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request(URL_, { method: "POST", body, headers: { "content-type": "application/json", ...headers }, duplex: "half" } as RequestInit);

describe("screenTrpcRequest", () => {
  it("stops reading an endless body just past the limit: 413, the stream cancelled", async () => {
    const { body, pulled } = endless();
    const out = await screenTrpcRequest(post(body), 1024 * 1024);
    expect("refused" in out && out.refused.status).toBe(413);
    expect(await (out as { refused: Response }).refused.json()).toMatchObject({ error: { code: "PAYLOAD_TOO_LARGE" } });
    expect(pulled.cancelled).toBe(true);
    expect(pulled.bytes).toBeLessThan(1024 * 1024 + 4 * 64 * 1024);
  });

  it("refuses a declared length over the limit without reading", async () => {
    const { body, pulled } = endless();
    const out = await screenTrpcRequest(post(body, { "content-length": String(MAX_TRPC_BYTES + 1) }));
    expect("refused" in out && out.refused.status).toBe(413);
    expect(pulled.bytes).toBeLessThanOrEqual(2 * 64 * 1024); // at most what the stream buffered ahead on its own
  });

  it("hands tRPC the same body when it is within the limits", async () => {
    const input = JSON.stringify({ 0: { json: { workspaceId: "ws_1", name: "é ✓" } } });
    const out = await screenTrpcRequest(post(input));
    expect("request" in out).toBe(true);
    const r = (out as { request: Request }).request;
    expect([r.method, r.url, r.headers.get("content-type")]).toEqual(["POST", URL_, "application/json"]);
    expect(await r.text()).toBe(input);
    const get = new Request(`${URL_}&input=${encodeURIComponent(input)}`);
    expect(await screenTrpcRequest(get)).toEqual({ request: get });
  });

  it("keeps refusing deep nesting and NUL characters (400)", async () => {
    const deep = "[".repeat(MAX_JSON_DEPTH + 10) + "]".repeat(MAX_JSON_DEPTH + 10);
    for (const bad of [deep, JSON.stringify({ 0: { json: { name: "a\u0000b" } } })]) {
      const out = await screenTrpcRequest(post(bad));
      expect("refused" in out && out.refused.status).toBe(400);
    }
  });
});
