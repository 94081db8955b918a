/**
 * What an operator reads when a process cannot open PostgreSQL at start: the driver's own words
 * (`connect ECONNREFUSED 127.0.0.1:5432`, `password authentication failed for user "conveyor"`) name
 * neither PostgreSQL nor the setting to fix. This names the server (never the password), the variable,
 * and the usual fix.
 */

/** `host:port/database` (user) of a PostgreSQL URL, without its password. */
export function pgTarget(url: string): string {
  try {
    const u = new URL(url);
    const db = decodeURIComponent(u.pathname.replace(/^\//, "")) || decodeURIComponent(u.username) || "(default)";
    const user = u.username ? ` as ${decodeURIComponent(u.username)}` : "";
    return `${u.hostname || "localhost"}:${u.port || 5432}/${db}${user}`;
  } catch {
    return "(unparsable URL)";
  }
}

const HINTS: Array<[RegExp, string]> = [
  [/ECONNREFUSED/, "Is PostgreSQL running and listening on that address and port?"],
  [/ENOTFOUND|EAI_AGAIN/, "The host name does not resolve."],
  [/ETIMEDOUT|timeout exceeded when trying to connect|Connection terminated due to connection timeout/i, "No answer in time: a firewall, a wrong host, or an overloaded server."],
  [/password authentication failed|no password supplied|SASL/i, "Check the user and password in DATABASE_URL (percent-encode special characters)."],
  [/database "[^"]*" does not exist/, "Create it first: CREATE DATABASE … OWNER … ENCODING 'UTF8' TEMPLATE template0 (README, Scale-out mode)."],
  [/no pg_hba\.conf entry/, "PostgreSQL's pg_hba.conf does not let this host and user in."],
  [/permission denied for (schema|database)/, "The database must be owned by the user in DATABASE_URL (CREATE DATABASE … OWNER …): that user creates the tables."],
  [/too many (clients|connections)/i, "max_connections is reached: see the connection budget (README) and CONVEYOR_PG_POOL_MAX."],
];

export function pgConnectProblem(url: string, e: unknown, doing = "connect to"): Error {
  const msg = (e instanceof Error ? e.message : String(e)) || "no reason given";
  const hint = HINTS.find(([re]) => re.test(msg))?.[1];
  return new Error(`Cannot ${doing} PostgreSQL at ${pgTarget(url)} (DATABASE_URL): ${msg}${hint ? `. ${hint}` : ""}`, { cause: e });
}
