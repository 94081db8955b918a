/** The chaos suite's TCP fault proxy: pass-through, blackhole (accepts, swallows, drops on heal), drop-replies and reset. */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFaultProxy, type FaultProxy } from "./fault-proxy";

let echo: net.Server;
let received = 0;
let proxy: FaultProxy;

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, "127.0.0.1", () => resolve(s));
    s.once("error", reject);
  });
}
const reply = (s: net.Socket) => new Promise<string>((resolve) => s.once("data", (d) => resolve(d.toString())));
async function waitUntil(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((r) => setTimeout(r, 5));
}
const closed = (s: net.Socket) =>
  new Promise<string>((resolve) => {
    s.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"));
    s.on("close", () => resolve("closed"));
  });

describe("fault proxy", () => {
  beforeAll(async () => {
    echo = net.createServer((s) => {
      s.on("error", () => undefined);
      s.on("data", (d) => {
        received += d.length;
        s.write(`echo:${d.toString()}`);
      });
    });
    await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
    proxy = await startFaultProxy({ port: (echo.address() as net.AddressInfo).port });
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise((r) => echo.close(r));
  });

  it("passes bytes both ways", async () => {
    const s = await connect(proxy.port);
    const r = reply(s);
    s.write("a");
    expect(await r).toBe("echo:a");
    s.destroy();
  });

  it("blackhole: accepts connections and swallows every byte; when it ends they are dropped and new ones flow", async () => {
    const before = await connect(proxy.port);
    await (async () => {
      const r = reply(before);
      before.write("b");
      await r;
    })();
    const receivedBefore = received;
    proxy.set("blackhole");
    const during = await connect(proxy.port); // accepted, as a partitioned network's SYN-ACK never says no
    const endBefore = closed(before);
    const endDuring = closed(during);
    let answered = false;
    for (const s of [before, during]) s.on("data", () => (answered = true));
    const swallowedBefore = proxy.swallowed();
    before.write("lost-1");
    during.write("lost-2");
    await waitUntil(() => proxy.swallowed() - swallowedBefore === "lost-1lost-2".length);
    proxy.set("pass");
    expect(await endBefore).not.toBe("open");
    expect(await endDuring).not.toBe("open");
    expect(answered).toBe(false);
    expect(received).toBe(receivedBefore);
    const after = await connect(proxy.port);
    const r = reply(after);
    after.write("c");
    expect(await r).toBe("echo:c");
    after.destroy();
  });

  it("drop-replies: bytes still reach the server, its replies are swallowed; when it ends the connections are dropped", async () => {
    const before = await connect(proxy.port);
    const endBefore = closed(before);
    let answered = false;
    before.on("data", () => (answered = true));
    proxy.set("drop-replies");
    const receivedBefore = received;
    const swallowedBefore = proxy.swallowed();
    before.write("runs-1");
    // The server got it and answered; the answer was swallowed on its way back.
    await waitUntil(() => received - receivedBefore === "runs-1".length && proxy.swallowed() - swallowedBefore === "echo:runs-1".length);
    expect(answered).toBe(false);
    proxy.set("pass");
    expect(await endBefore).not.toBe("open");
    expect(answered).toBe(false);
    const after = await connect(proxy.port);
    const r = reply(after);
    after.write("e");
    expect(await r).toBe("echo:e");
    after.destroy();
  });

  it("reset: open connections are reset, new ones too, until it passes again", async () => {
    const open = await connect(proxy.port);
    const end = closed(open);
    proxy.set("reset");
    expect(await end).toMatch(/ECONNRESET|closed/);
    const refused = await new Promise<string>((resolve) => {
      const s = net.connect(proxy.port, "127.0.0.1");
      s.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"));
      s.on("close", () => resolve("closed"));
      s.on("data", () => resolve("data"));
      s.on("connect", () => s.write("x"));
    });
    expect(refused).toMatch(/ECONNRESET|closed|EPIPE/);
    proxy.set("pass");
    const s = await connect(proxy.port);
    const r = reply(s);
    s.write("d");
    expect(await r).toBe("echo:d");
    s.destroy();
  });
});
