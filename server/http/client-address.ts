/**
 * The client's address as the service believes it: the socket's peer, or, when that peer is a
 * proxy listed in CONVEYOR_TRUST_PROXY, the address it forwarded (X-Forwarded-For walked from the
 * right, stopping at the first untrusted hop; proxy-addr does the walk). A client that rotates
 * X-Forwarded-For without a trusted proxy in front changes nothing.
 *
 * server/main.ts stamps the result on every request it hands to Next.js as
 * `x-conveyor-client-address` (any incoming header of that name is replaced first).
 */
import type { IncomingMessage } from "node:http";
import proxyaddr from "proxy-addr";

export const CLIENT_ADDRESS_HEADER = "x-conveyor-client-address";

export function createClientAddressResolver(trusted: string[]): (req: IncomingMessage) => string | undefined {
  const trust = proxyaddr.compile(trusted);
  return (req) => {
    if (!req.socket?.remoteAddress) return undefined;
    try {
      return proxyaddr(req as Parameters<typeof proxyaddr>[0], trust);
    } catch {
      return req.socket.remoteAddress;
    }
  };
}

/** Replaces any client-sent `x-conveyor-client-address` with the resolved address. */
export function stampClientAddress(req: IncomingMessage, resolve: (req: IncomingMessage) => string | undefined): void {
  delete req.headers[CLIENT_ADDRESS_HEADER];
  const address = resolve(req);
  if (address) req.headers[CLIENT_ADDRESS_HEADER] = address;
}

/** The stamped address from a request's headers (next-auth's `authorize` sees a plain header object). */
export function clientAddressOf(headers: Record<string, unknown> | undefined): string | undefined {
  const v = headers?.[CLIENT_ADDRESS_HEADER];
  return typeof v === "string" && v ? v : undefined;
}
