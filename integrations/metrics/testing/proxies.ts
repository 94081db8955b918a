/**
 * Loopback proxies in front of the real servers:
 * - an auth proxy that enforces basic or bearer auth (Prometheus 2.42 cannot check bearer tokens),
 * - a fault proxy that answers 5xx, never answers (timeout) or passes through.
 */
import http from "node:http";
import type net from "node:net";

export interface Proxy {
  url: string;
  /** Requests seen (any outcome). */
  hits: number;
  stop(): Promise<void>;
}

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`));
  });
}

function forward(target: string, req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? "/", target);
  const headers = { ...req.headers, host: url.host };
  delete headers.authorization;
  const up = http.request(url, { method: req.method, headers }, (upRes) => {
    res.writeHead(upRes.statusCode ?? 502, upRes.headers);
    upRes.pipe(res);
  });
  up.on("error", (e) => {
    res.writeHead(502, { "content-type": "text/plain" });
    res.end(`proxy: ${e.message}`);
  });
  req.pipe(up);
}

function closer(server: http.Server, sockets: Set<net.Socket>) {
  return () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
}

function track(server: http.Server): Set<net.Socket> {
  const sockets = new Set<net.Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });
  return sockets;
}

export async function startAuthProxy(opts: { target: string; basic?: { username: string; password: string }; bearer?: string }): Promise<Proxy> {
  const expected = opts.basic ? `Basic ${Buffer.from(`${opts.basic.username}:${opts.basic.password}`).toString("base64")}` : `Bearer ${opts.bearer}`;
  const state = { hits: 0 };
  const server = http.createServer((req, res) => {
    state.hits++;
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { "content-type": "text/plain", "www-authenticate": opts.basic ? 'Basic realm="prometheus"' : "Bearer" });
      res.end("Unauthorized\n");
      return;
    }
    forward(opts.target, req, res);
  });
  const sockets = track(server);
  const url = await listen(server);
  return {
    url,
    get hits() {
      return state.hits;
    },
    stop: closer(server, sockets),
  };
}

export type FaultMode = "pass" | "5xx" | "timeout" | "html";

export interface FaultProxy extends Proxy {
  mode: FaultMode;
}

export async function startFaultProxy(opts: { target: string; mode?: FaultMode }): Promise<FaultProxy> {
  const state = { hits: 0, mode: opts.mode ?? ("pass" as FaultMode) };
  const server = http.createServer((req, res) => {
    state.hits++;
    if (state.mode === "5xx") {
      res.writeHead(503, { "content-type": "text/plain" });
      res.end("Service Unavailable (fault proxy)\n");
    } else if (state.mode === "html") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html><body>Some other web server</body></html>");
    } else if (state.mode === "pass") forward(opts.target, req, res);
    // "timeout": never answer; the client's timeout fires.
  });
  const sockets = track(server);
  const url = await listen(server);
  return {
    url,
    get hits() {
      return state.hits;
    },
    get mode() {
      return state.mode;
    },
    set mode(m: FaultMode) {
      state.mode = m;
    },
    stop: closer(server, sockets),
  };
}
