/**
 * Time limits of every node:http listener of the service (the web process and the role listeners),
 * against slow senders: a client that drips its headers or its body a byte at a time holds a
 * socket, and with Node's defaults (headers 60 s, whole request 300 s, checked every 30 s) a few
 * thousand such connections on `/hooks` hold thousands of sockets and up to the body cap of buffered
 * bytes each for five minutes. With these limits a request must arrive whole within 30 s (a 1 MiB
 * body needs ~35 KB/s); Node answers 408 and closes the connection. Responses are not limited.
 */
import type http from "node:http";

export interface ListenerLimits {
  /** All request headers must have arrived within this time. */
  headersTimeoutMs: number;
  /** The whole request (headers and body) must have arrived within this time. */
  requestTimeoutMs: number;
  /** How often Node checks the two limits above. */
  checkIntervalMs: number;
}

export const LISTENER_LIMITS: ListenerLimits = { headersTimeoutMs: 15_000, requestTimeoutMs: 30_000, checkIntervalMs: 1_000 };

/** Options for `http.createServer` (the check interval can only be given there). */
export function listenerOptions(limits: ListenerLimits = LISTENER_LIMITS): http.ServerOptions {
  return { headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: limits.checkIntervalMs };
}
