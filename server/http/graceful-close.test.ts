import http from "node:http";
import net from "node:net";
import { afterEach, expect, it } from "vitest";
import { createTestDeps } from "../testing";
import { startWorker } from "../roles/start";
import { gracefulClose } from "./graceful-close";

const agents: http.Agent[] = [];
const servers: http.Server[] = [];
afterEach(() => {
  agents.splice(0).forEach((a) => a.destroy());
  servers.splice(0).forEach((s) => s.closeAllConnections());
});

it("a worker stops while a client keeps polling its health over a keep-alive connection that was busy when the stop began", async () => {
  const deps = await createTestDeps();
  // The environment's runner settings unset: the runner's defaults.
  const worker = await startWorker(deps, { HOST: "127.0.0.1" } as Parameters<typeof startWorker>[1], { port: 0 });
  const socket = net.connect(worker.port!, "127.0.0.1");
  await new Promise((r) => socket.once("connect", r));
  const request = "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  let answers = 0;
  let closeHeader = false;
  let text = "";
  socket.on("data", (d: Buffer) => {
    text += d.toString("latin1");
    // One answer per poll: poll again 20 ms after each, as a probe on a keep-alive connection does.
    while (text.includes("\r\n\r\n")) {
      const head = text.slice(0, text.indexOf("\r\n\r\n"));
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      const end = text.indexOf("\r\n\r\n") + 4 + length;
      if (text.length < end) break;
      text = text.slice(end);
      answers++;
      if (/^connection: close/im.test(head)) closeHeader = true;
      setTimeout(() => socket.writable && socket.write(request + "\r\n"), 20);
    }
  });
  const ended = new Promise<void>((r) => socket.once("close", () => r()));
  try {
    // The connection is busy (a request's headers half sent) when the stop begins: server.close() leaves it open.
    socket.write(request);
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    const stopped = worker.stop();
    await new Promise((r) => setTimeout(r, 50));
    socket.write("\r\n");
    // Before: the poller was answered keep-alive for good and the stop never finished.
    await stopped;
    expect(Date.now() - t0).toBeLessThan(5_000);
    await ended;
    expect(answers).toBe(1);
    expect(closeHeader).toBe(true);
  } finally {
    socket.destroy();
    await deps.close().catch(() => undefined); // the worker's stop closed the store and queue already
  }
}, 20_000);

it("a request being served when the close starts gets its answer, then its idle connection is closed and the close completes well before the grace", async () => {
  let release: () => void = () => undefined;
  let received: () => void = () => undefined;
  const got = new Promise<void>((r) => (received = r));
  const server = http.createServer((_req, res) => {
    received();
    // Answered only when the test says: the close starts while this request is being served.
    release = () => res.end("ok");
  });
  server.keepAliveTimeout = 65_000;
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  agents.push(agent);
  const answer = new Promise<http.IncomingMessage>((resolve, reject) =>
    http.get(`http://127.0.0.1:${port}/`, { agent }, (res) => (res.resume(), resolve(res))).on("error", reject),
  );
  await got;
  const t0 = Date.now();
  const closed = gracefulClose(server, 60_000);
  release();
  expect((await answer).statusCode).toBe(200);
  // server.close() alone would wait for the client's keep-alive connection (65 s here).
  await closed;
  expect(Date.now() - t0).toBeLessThan(5_000);
  expect(server.listening).toBe(false);
});

it("cuts a connection that is still sending its request after the grace", async () => {
  const server = http.createServer((_req, res) => res.end("ok"));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  // Headers sent, body never finished: not idle, so neither server.close nor the idle sweep ends it.
  const req = http.request({ port, host: "127.0.0.1", method: "POST", headers: { "content-length": "100" } });
  req.on("error", () => undefined);
  req.write("x");
  await new Promise((r) => setTimeout(r, 100));
  const t0 = Date.now();
  await gracefulClose(server, 300);
  expect(Date.now() - t0).toBeLessThan(3_000);
});
