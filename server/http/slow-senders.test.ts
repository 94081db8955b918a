/**
 * Slow senders (slowloris) against the lean `/hooks` listener: headers or a body dripped a byte at
 * a time used to hold the socket (and the bytes buffered so far) for up to Node's defaults, 60 s
 * for headers and 300 s for the whole request. Every listener now takes LISTENER_LIMITS; here they
 * are shortened to under a second so the test runs in seconds (it allows 5 s for a busy machine,
 * against 60 s and 300 s before), and the defaults are checked on a listener as built.
 */
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDeps, type TestDeps } from "../testing";
import { startRoleServer, type RoleServer } from "../roles/ops-http";
import { get } from "../roles/testing/processes";
import { LISTENER_LIMITS } from "./listener-limits";

let deps: TestDeps | undefined;
let server: RoleServer | undefined;
afterEach(async () => {
  server?.server.closeAllConnections();
  await server?.close();
  await deps?.close();
  [deps, server] = [undefined, undefined];
});

const SHORT = { headersTimeoutMs: 600, requestTimeoutMs: 1_200, checkIntervalMs: 100 };

async function start(limits?: typeof SHORT) {
  deps = await createTestDeps();
  server = await startRoleServer({ deps, role: () => ({ role: "ingress" }), host: "127.0.0.1", port: 0, hooks: { maxBytes: 1 << 20, timeoutMs: 5000 }, limits });
  return server.port;
}

/** Opens a connection, sends `head`, then one `drip` every 50 ms until the server answers or closes; resolves with what it answered and when. */
function slowSender(port: number, head: string, drip: string): Promise<{ answer: string; afterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let timer: ReturnType<typeof setInterval> | undefined;
    // The drip starts once the head is written: a socket is writable (buffering) before it connects,
    // and a drip queued ahead of the head made the request line "1POST …" (a 400 on a loaded machine).
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.write(head);
      timer = setInterval(() => socket.writable && socket.write(drip), 50);
    });
    let answer = "";
    socket.on("data", (d) => (answer += d.toString("latin1")));
    socket.on("error", () => undefined); // a write racing the server's close
    socket.on("close", () => {
      clearInterval(timer);
      resolve({ answer, afterMs: Date.now() - started });
    });
    setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error(`the server still held the slow connection after 8 s (answered: ${JSON.stringify(answer.slice(0, 80))})`));
    }, 8_000).unref();
  });
}

describe("slow senders on /hooks", () => {
  it("headers dripped a line at a time: 408 and the connection closed at the headers deadline", async () => {
    const port = await start(SHORT);
    const r = await slowSender(port, "POST /hooks/abcdef HTTP/1.1\r\nHost: x\r\n", "X-Slow: 1\r\n");
    expect(r.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(r.afterMs).toBeLessThan(5_000);
  });

  it("a body dripped a byte at a time: 408 and the connection closed at the request deadline; other requests are served meanwhile", async () => {
    const port = await start(SHORT);
    const slow = Array.from({ length: 20 }, () =>
      slowSender(port, "POST /hooks/abcdef HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n[", "1"),
    );
    expect((await get(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);
    for (const r of await Promise.all(slow)) {
      expect(r.answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(r.afterMs).toBeLessThan(5_000);
    }
  });

  it("listeners get the limits by default (15 s for headers, 30 s for the request, checked every second)", async () => {
    await start();
    expect(server!.server.headersTimeout).toBe(LISTENER_LIMITS.headersTimeoutMs);
    expect(server!.server.requestTimeout).toBe(LISTENER_LIMITS.requestTimeoutMs);
    expect([LISTENER_LIMITS.headersTimeoutMs, LISTENER_LIMITS.requestTimeoutMs]).toEqual([15_000, 30_000]);
  });
});
