/**
 * Whether an error means the database could not be reached or did not answer, as opposed to a
 * request it refused. Doors answer such errors 503 with Retry-After (the request may succeed once
 * the database is back) instead of 500, so clients and load balancers retry rather than report a
 * bug. Driver errors arrive wrapped (drizzle's "Failed query: …" keeps the driver's error as
 * `cause`), so the whole cause chain is read.
 */

/** Node socket errors: the server is down, unreachable, or dropped the connection. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EPIPE", "ENOTFOUND", "EAI_AGAIN"]);

/** PostgreSQL SQLSTATEs: shutting down, starting up, or out of connection slots. Class 08 (connection exception) is matched by prefix. */
const PG_STATES = new Set(["57P01", "57P02", "57P03", "53300"]);

/** node-postgres and pg-pool errors that carry no code: pool wait or connect timeout, read timeout, lost connection. */
const PG_MESSAGES = [
  /timeout exceeded when trying to connect/i,
  /connection terminated/i,
  /query read timeout/i,
  /client has encountered a connection error/i,
  /cannot use a pool after calling end/i,
];

/** SQLite: another process holds the write lock for longer than the busy timeout. */
const SQLITE_CODES = new Set(["SQLITE_BUSY", "SQLITE_LOCKED"]);

function unavailableItself(e: unknown): boolean {
  if (!e || typeof e !== "object") return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === "string") {
    if (SOCKET_CODES.has(code) || PG_STATES.has(code) || SQLITE_CODES.has(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  const message = (e as { message?: unknown }).message;
  return typeof message === "string" && PG_MESSAGES.some((re) => re.test(message));
}

export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e = error; e && typeof e === "object" && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    // An outbound HTTP call that failed (undici) is an upstream's trouble, not the database's.
    if ((e as { message?: unknown }).message === "fetch failed") return false;
    if (unavailableItself(e)) return true;
    // AggregateError (e.g. a connect attempt to both ::1 and 127.0.0.1) carries its reasons in `errors`.
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner) && inner.some(unavailableItself)) return true;
  }
  return false;
}
