/**
 * Serves /api/v1 on a loopback port from the in-process route modules, so that a client process
 * (the `conveyor` CLI) can be tested against the REST API without a Next build. With
 * CONVEYOR_REST_HTTP=1 tests use the built app's own port instead (see target.ts).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { dispatchInProcess } from "./rest-client";

export async function serveInProcess(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      try {
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        const url = `http://${req.headers.host}${req.url}`;
        const r = await dispatchInProcess(
          new Request(url, { method: req.method, headers, body: req.method === "GET" || req.method === "HEAD" ? undefined : body }),
        );
        res.writeHead(r.status, Object.fromEntries(r.headers.entries()));
        res.end(Buffer.from(await r.arrayBuffer()));
      } catch (e) {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end((e as Error).message);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
