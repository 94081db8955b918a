/** A loopback HTTP receiver that records every delivery (raw body + headers) Alertmanager sends. */
import http from "node:http";
import type net from "node:net";
import type { IncomingDelivery } from "../../core/define";

export interface Received {
  at: number;
  headers: Record<string, string>;
  rawBody: Buffer;
}

export interface WebhookSink {
  url: string;
  received: Received[];
  /** Resolves with the first delivery (after `from`) satisfying `pred`. */
  next(pred: (r: Received) => boolean, timeoutMs: number, from?: number): Promise<Received>;
  stop(): Promise<void>;
}

export async function startWebhookSink(path = "/hooks/sink"): Promise<WebhookSink> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      received.push({ at: Date.now(), headers, rawBody: Buffer.concat(chunks) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}${path}`;
  return {
    url,
    received,
    async next(pred, timeoutMs, from = 0) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const hit = received.slice(from).find(pred);
        if (hit) return hit;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`no matching webhook within ${timeoutMs} ms (${received.length} received)`);
    },
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export function toDelivery(r: { headers: Record<string, string>; rawBody: Buffer }): IncomingDelivery {
  let body: unknown;
  try {
    body = JSON.parse(r.rawBody.toString("utf8"));
  } catch {
    body = undefined;
  }
  return { method: "POST", headers: r.headers, query: {}, rawBody: r.rawBody, body };
}
