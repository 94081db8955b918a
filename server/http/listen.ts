/**
 * Listening on the configured port, with the failures a person can fix told as a sentence that says
 * how (which setting to change), instead of Node's unhandled 'error' event and its stack trace.
 * The error code stays in the text (EADDRINUSE…) for scripts that look for it.
 */
import type { Server } from "node:http";

export function listen(server: Server, port: number, host: string, setting: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (e: NodeJS.ErrnoException) => reject(explainListenError(e, port, host, setting));
    server.once("error", failed);
    server.listen(port, host, () => {
      server.off("error", failed);
      resolve();
    });
  });
}

/** `setting` names what chooses the port (e.g. "PORT", "--port or CONVEYOR_INGRESS_PORT"). */
export function explainListenError(e: NodeJS.ErrnoException, port: number, host: string, setting: string): Error {
  const where = `${host}:${port}`;
  switch (e.code) {
    case "EADDRINUSE":
      return new Error(`Cannot listen on ${where}: the port is already in use (EADDRINUSE), by another Conveyor or another program. Stop it, or choose another port with ${setting}.`);
    case "EACCES":
      return new Error(`Cannot listen on ${where}: not allowed (EACCES); ports below 1024 need privileges. Choose a port from 1024 up with ${setting}.`);
    case "EADDRNOTAVAIL":
      return new Error(`Cannot listen on ${where}: ${host} is not an address of this machine (EADDRNOTAVAIL). Set HOST to one of its addresses, 127.0.0.1 or 0.0.0.0.`);
    default:
      return e;
  }
}
