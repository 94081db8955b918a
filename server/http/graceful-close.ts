/**
 * Stopping a node:http listener without letting a client hold the process open. `server.close()`
 * stops accepting and closes the connections idle at that moment, then waits for every other
 * connection to end; a client that reuses a keep-alive connection (a health probe or scraper polling
 * it, a sender posting deliveries) keeps it busy, so the close never finished and the process never
 * stopped (seen: a worker polled every 20 ms went on serving for good after its launcher exited).
 *
 * After `gracefulClose` every request that arrives on an open connection is answered with
 * `Connection: close` (Node ends the socket once that response is written), a connection that goes
 * idle (a request being served when the close began, answered since) is closed, and what is left
 * after `graceMs` (a request still arriving, a response not yet written) is cut. Listeners need no
 * part in it: the header is set by a request listener placed before theirs.
 */
import type http from "node:http";

/** Stops the listener; resolves when every connection has ended (at most `graceMs` after the call, plus the last writes). */
export function gracefulClose(server: http.Server, graceMs = 10_000): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    server.prependListener("request", (_req: http.IncomingMessage, res: http.ServerResponse) => res.setHeader("connection", "close"));
    const cut = setTimeout(() => server.closeAllConnections(), graceMs);
    cut.unref();
    // A connection between two requests: closed at once (server.close does this too, once).
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    idle.unref();
    server.close(() => {
      clearTimeout(cut);
      clearInterval(idle);
      resolve();
    });
  });
}
