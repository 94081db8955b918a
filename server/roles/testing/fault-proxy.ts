/**
 * A small TCP fault proxy on loopback, put between Conveyor processes and PostgreSQL or Redis by the
 * scale-out tests and the chaos suite (no library fits: toxiproxy needs its Go server binary). Modes:
 * - `pass`: bytes flow both ways;
 * - `blackhole`: a partition that drops packets without closing anything: new connections are
 *   accepted and every byte, both ways, is swallowed. When it ends, the connections that were open
 *   during it are dropped (their streams lost bytes and are out of sync for good, as a real peer
 *   would reset them after its timeouts); new connections flow again;
 * - `drop-replies`: a partition of the way back only: client→server bytes still flow, server→client
 *   bytes are swallowed (a statement reaches the server and runs, its reply is lost). Ends like
 *   `blackhole`: the connections open during it are dropped when it ends;
 * - `reset`: every open connection is reset (RST) and new ones are reset as soon as they connect.
 */
import net from "node:net";

export type FaultMode = "pass" | "blackhole" | "drop-replies" | "reset";

export interface FaultProxy {
  /** The loopback port clients connect to. */
  port: number;
  mode(): FaultMode;
  set(mode: FaultMode): void;
  /** Client connections currently open through the proxy. */
  connections(): number;
  /** Bytes swallowed by blackholes so far (both ways). */
  swallowed(): number;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
  /** Open while a blackhole (or drop-replies) was on: dropped when it ends. */
  holed: boolean;
}

export async function startFaultProxy(target: { port: number; host?: string }, opts: { port?: number } = {}): Promise<FaultProxy> {
  let mode: FaultMode = "pass";
  const pairs = new Set<Pair>();
  let swallowed = 0;
  const reset = (s: net.Socket) => (s.destroyed ? undefined : s.resetAndDestroy());
  const server = net.createServer((client) => {
    client.on("error", () => undefined);
    if (mode === "reset") return void reset(client);
    const upstream = net.connect(target.port, target.host ?? "127.0.0.1");
    upstream.on("error", () => undefined);
    const pair: Pair = { client, upstream, holed: mode === "blackhole" || mode === "drop-replies" };
    pairs.add(pair);
    const forward = (to: net.Socket, toServer: boolean) => (d: Buffer) => {
      if ((mode === "pass" && !pair.holed) || (toServer && mode === "drop-replies")) to.write(d);
      else swallowed += d.length;
    };
    client.on("data", forward(upstream, true));
    upstream.on("data", forward(client, false));
    // A peer that closes or resets: the other side sees a reset, as without the proxy.
    client.on("close", () => {
      pairs.delete(pair);
      reset(upstream);
    });
    upstream.on("close", () => {
      pairs.delete(pair);
      reset(client);
    });
  });
  server.on("error", () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    mode: () => mode,
    set(next) {
      const was = mode;
      mode = next;
      const holes = (m: FaultMode) => m === "blackhole" || m === "drop-replies";
      if (holes(next)) for (const p of pairs) p.holed = true;
      if (next === "reset" || (holes(was) && next === "pass")) {
        for (const p of [...pairs]) {
          if (next === "reset" || p.holed) {
            pairs.delete(p);
            reset(p.client);
            reset(p.upstream);
          }
        }
      }
    },
    connections: () => pairs.size,
    swallowed: () => swallowed,
    close: () =>
      new Promise<void>((resolve) => {
        for (const p of pairs) {
          reset(p.client);
          reset(p.upstream);
        }
        pairs.clear();
        server.close(() => resolve());
      }),
  };
}
