/**
 * The outcome of an ingest statement that failed (db/pg/ingest.ts). The ingest is one atomic
 * statement, so a failure is one of:
 * - known, not stored: the statement was never sent (no connection could be had from the pool or
 *   opened), or the server answered with an error (a pg.DatabaseError: the statement rolled back);
 * - unknown: the statement was sent and no reply came (the client's read timeout, the connection
 *   dropped after sending). PostgreSQL may have committed it. The run ids are made in Node before
 *   the statement, so whether the batch landed is checked on a fresh connection: are its candidate
 *   run ids in `runs`? The check is retried until it answers or `untilMs` passes.
 */
import pg from "pg";
import { brokenBy, fromServer } from "./backend";

type Q = Pick<pg.PoolClient, "query">;

/** A query function over the pool that records whether its statement was handed to a connection. */
export interface SendTracked extends Q {
  /** True once a statement was written to a connection (its outcome is then only known from a reply). */
  readonly sent: boolean;
}

export function sendTracked(pool: pg.Pool): SendTracked {
  let sent = false;
  const query = async (...args: unknown[]) => {
    const c = await pool.connect(); // a failure here: nothing was sent
    let broken: Error | undefined;
    try {
      sent = true;
      return await (c.query as (...a: unknown[]) => Promise<unknown>)(...args);
    } catch (e) {
      broken = brokenBy(e);
      throw e;
    } finally {
      c.release(broken);
    }
  };
  return {
    query: query as unknown as Q["query"],
    get sent() {
      return sent;
    },
  };
}

/** True when a failed ingest statement may have committed: it was sent and the server did not answer with an error. */
export function outcomeUnknown(q: SendTracked, e: unknown): boolean {
  return q.sent && !fromServer(e);
}

/** The candidate runs of a failed ingest, by index (db/pg/ingest.ts ingestRows attaches them to its error). */
export type IngestCandidates = Array<{ runId: string; finished: boolean }>;

const CANDIDATES = Symbol("ingestCandidates");

export function withCandidates(e: unknown, cands: IngestCandidates): unknown {
  if (e && typeof e === "object") (e as Record<symbol, IngestCandidates>)[CANDIDATES] = cands;
  return e;
}

export function candidatesOf(e: unknown): IngestCandidates | undefined {
  return e && typeof e === "object" ? (e as Record<symbol, IngestCandidates | undefined>)[CANDIDATES] : undefined;
}

const RETRY_MS = 250;

/**
 * Which of `runIds` exist, asked on a fresh connection (pooled ones may be the stuck ones), retried
 * until an answer comes or `untilMs` (epoch ms) passes; undefined when no answer came in time. The
 * ingest is atomic, so a non-empty answer means the batch landed and names the runs it created;
 * an empty one means it created nothing (not landed, or every delivery of it was a duplicate).
 */
export async function existingRuns(pool: pg.Pool, runIds: string[], untilMs: number): Promise<Set<string> | undefined> {
  const base = pool.options as pg.ClientConfig & { connectionTimeoutMillis?: number; query_timeout?: number };
  for (;;) {
    const left = untilMs - Date.now();
    if (left <= 0) return undefined;
    const client = new pg.Client({
      ...base,
      connectionTimeoutMillis: Math.min(left, base.connectionTimeoutMillis || 5000),
      query_timeout: Math.min(left, base.query_timeout || 5000),
    });
    client.on("error", () => undefined);
    try {
      await client.connect();
      const r = await client.query<{ id: string }>("select id from runs where id = any($1::text[])", [runIds]);
      void client.end().catch(() => undefined);
      return new Set(r.rows.map((x) => x.id));
    } catch {
      // No answer: drop the socket at once (an orderly end would wait on a silent server).
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    }
    const wait = Math.min(RETRY_MS, untilMs - Date.now());
    if (wait > 0) await new Promise((r) => setTimeout(r, wait).unref());
  }
}
