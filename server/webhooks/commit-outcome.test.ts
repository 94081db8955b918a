/**
 * A webhook delivery whose commit outcome is unknown never gets a definite negative answer
 * (server/webhooks/deliver.ts, db/pg/ingest-outcome.ts). Regression for the chaos finding "delivery
 * 7237 answered 503 while its run exists" (PostgreSQL blackholed between receiving the ingest
 * statement and its reply reaching the ingress).
 *
 * - Both backends: a commit pending at the webhook timeout (a gated engine) is waited for up to the
 *   grace: landed → 202, failed → 503, still pending → no answer (the commit then lands, and a retry
 *   with the delivery id is a duplicate); a delivery whose commit had not started at the timeout
 *   gets 503 and is never committed later.
 * - PostgreSQL: the ingest goes through the TCP fault proxy; with `drop-replies` the statement
 *   reaches PostgreSQL and commits but its reply is swallowed: 202 when the check on a fresh
 *   connection can run, no answer when it cannot; never 503. A statement that cannot reach
 *   PostgreSQL at all (connections reset) gets 503. Nothing is lost or doubled.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { IngestItem, IngestResult, RunEngine } from "@/db/engine";
import { openStorage, type OpenedStorage } from "@/db/open";
import type { AppDeps } from "../deps";
import { createTestDeps } from "../testing";
import { seedWorkspace } from "../runner/testing/seed";
import { waitFor } from "../runner/testing/wait";
import { createAutomation } from "../services/automations";
import { startFaultProxy, type FaultProxy } from "../roles/testing/fault-proxy";
import { handleHookRequest, type HookOptions } from "./lean-listener";

const PG = process.env.CONVEYOR_TEST_BACKEND === "postgres";

let deps: Awaited<ReturnType<typeof createTestDeps>>;
let hookPath: string;
const logged: string[] = [];
const servers: http.Server[] = [];

beforeEach(async () => {
  logged.length = 0;
  const log = { debug() {}, info() {}, warn: (m: string) => void logged.push(m), error: (m: string) => void logged.push(m) };
  deps = await createTestDeps({ log });
  const ws = await seedWorkspace(deps);
  const a = await createAutomation(deps, ws.actor, ws.workspaceId, {
    name: "hook",
    enabled: true,
    graph: { nodes: [{ id: "t", name: "hook", key: "core.webhook", config: {} }], edges: [] },
  });
  hookPath = new URL(a.triggers[0]!.url!).pathname;
});
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
  await deps.close();
});

/** An ingress (the lean listener) over `d`. */
async function listen(d: AppDeps, opts: HookOptions): Promise<string> {
  const server = http.createServer((req, res) => handleHookRequest(req, res, d, { maxBytes: 4096, ...opts }));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

interface Answer {
  status?: number;
  body?: { accepted?: number; duplicates?: number; runIds?: string[] };
  retryAfter?: string | null;
  error?: string;
}

/** One delivery with `key` as its delivery id; no status when the connection closed without an answer. */
async function post(base: string, key: string): Promise<Answer> {
  try {
    const r = await fetch(base + hookPath, { method: "POST", body: "{}", headers: { "content-type": "application/json", "idempotency-key": key } });
    return { status: r.status, body: await r.json(), retryAfter: r.headers.get("retry-after") };
  } catch (e) {
    return { error: String((e as { cause?: unknown }).cause ?? e) };
  }
}

const runsOf = async (key: string) =>
  (await deps.sql<{ id: string }>("select r.id from runs r join events e on e.id = r.event_id where e.dedupe_key = ?", key)).map((r) => r.id);

/** Deps whose ingest goes through `engine` (everything else straight to the test database). */
function withEngine(engine: Partial<RunEngine>): AppDeps {
  return { ...deps, store: { ...deps.store, engine: { ...deps.store.engine, ...engine } } };
}

function gate<T = void>() {
  let open!: (v: T) => void;
  let fail!: (e: unknown) => void;
  const promise = new Promise<T>((resolve, reject) => ((open = resolve), (fail = reject)));
  return { promise, open, fail };
}

/** The engine's ingest, held until the gate opens (a commit that is pending for as long as the test wants). */
function gatedIngest(g: { promise: Promise<void> }) {
  const real = deps.store.engine.ingest;
  let calls = 0;
  return {
    calls: () => calls,
    ingest: async (item: IngestItem): Promise<IngestResult> => {
      calls++;
      await g.promise;
      return real(item);
    },
  };
}

/**
 * Deps whose delivery path reaches the commit without any I/O (the intake head fetched beforehand,
 * the trigger target cached by a first delivery), so the commit has started before a timer of
 * any length can fire, however loaded the machine: the webhook timeout then always finds it pending.
 */
async function straightToCommit(engine: Partial<RunEngine>): Promise<AppDeps> {
  expect((await post(await listen(deps, {}), "warm")).status).toBe(202);
  const head = await deps.store.engine.intakeHead(decodeURIComponent(hookPath.slice("/hooks/".length)));
  expect(head).toBeTruthy();
  return withEngine({ intakeHead: async () => head, ...engine });
}

const PENDING_AT_TIMEOUT = "webhook delivery's commit pending at the timeout: waiting for its outcome";

describe("a commit pending at the webhook timeout", () => {
  it("is waited for up to the grace: it lands → 202 with its run", async () => {
    const g = gate();
    const e = gatedIngest(g);
    const base = await listen(await straightToCommit({ ingest: e.ingest }), { timeoutMs: 20, outcomeGraceMs: 60_000 });
    const answer = post(base, "late-1");
    await waitFor(() => logged.includes(PENDING_AT_TIMEOUT), 15_000, "the timeout passed with the commit pending");
    g.open();
    const a = await answer;
    expect(a.status).toBe(202);
    expect(a.body?.runIds).toEqual(await runsOf("late-1"));
    expect(a.body?.runIds).toHaveLength(1);
  });

  it("fails after the timeout (known: rolled back) → 503 + Retry-After, no run", async () => {
    const g = gate();
    const e = gatedIngest(g);
    const base = await listen(await straightToCommit({ ingest: e.ingest }), { timeoutMs: 20, outcomeGraceMs: 60_000 });
    const answer = post(base, "late-2");
    await waitFor(() => logged.includes(PENDING_AT_TIMEOUT), 15_000, "the timeout passed with the commit pending");
    g.fail(new Error("database is locked"));
    const a = await answer;
    expect(a.status).toBe(503);
    expect(a.retryAfter).toMatch(/^\d+$/);
    expect(await runsOf("late-2")).toEqual([]);
  });

  it("still pending at the bound → no answer; it lands afterwards and a retry with the delivery id is a duplicate", async () => {
    const g = gate();
    const e = gatedIngest(g);
    const base = await listen(await straightToCommit({ ingest: e.ingest }), { timeoutMs: 20, outcomeGraceMs: 30 });
    const a = await post(base, "late-3");
    expect(a.status).toBeUndefined(); // the connection was closed without a response
    expect(a.error).toBeTruthy();
    expect(e.calls()).toBe(1);
    g.open();
    await waitFor(async () => (await runsOf("late-3")).length === 1, 15_000, "the pending commit landed");
    const retry = await post(await listen(deps, {}), "late-3");
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ accepted: 0, duplicates: 1 });
    expect(await runsOf("late-3")).toHaveLength(1);
  });

  it("a delivery whose commit had not started at the timeout gets 503 and is never committed later", async () => {
    const g = gate();
    const real = deps.store.engine.intakeHead;
    const e = gatedIngest({ promise: Promise.resolve() });
    const d = withEngine({ ingest: e.ingest, intakeHead: async (t) => (await g.promise, real(t)) });
    const a = await post(await listen(d, { timeoutMs: 20, outcomeGraceMs: 60_000 }), "early-1");
    expect(a.status).toBe(503);
    expect(a.retryAfter).toMatch(/^\d+$/);
    g.open();
    await waitFor(() => logged.includes("webhook delivery not stored"), 15_000, "the delivery's service call ended");
    expect(e.calls()).toBe(0);
    expect(await runsOf("early-1")).toEqual([]);
  });
});

describe.runIf(PG)("PostgreSQL: the ingest's reply lost (fault proxy between the ingress and PostgreSQL)", () => {
  let proxy: FaultProxy;
  let other: OpenedStorage;
  let base: (opts: HookOptions) => Promise<string>;

  beforeEach(async () => {
    const url = new URL(deps.url);
    proxy = await startFaultProxy({ port: Number(url.port) });
    url.port = String(proxy.port);
    // An ingress pool that gives up fast: 300 ms to connect, 500 ms for a reply.
    other = await openStorage(url.toString(), { migrate: false, pg: { max: 2, connectTimeoutMs: 300, queryTimeoutMs: 500 } });
    base = (opts) => listen(withEngine({ ingest: other.store.engine.ingest }), opts);
  });
  afterEach(async () => {
    await proxy.close();
    await other.store.close();
  });

  /** A delivery in pass mode, which also leaves an open pooled connection through the proxy. */
  async function warm(b: string, key: string) {
    expect(proxy.mode()).toBe("pass");
    const a = await post(b, key);
    expect(a.status).toBe(202);
  }

  it("the statement committed, its reply swallowed, the check can run → 202 with the run that exists, never 503", async () => {
    const b = await base({ timeoutMs: 20_000, outcomeGraceMs: 5_000 });
    await warm(b, "warm-a");
    proxy.set("drop-replies");
    const answer = post(b, "lost-reply-a");
    // The statement reached PostgreSQL and committed; the ingress saw no reply.
    await waitFor(async () => (await runsOf("lost-reply-a")).length === 1, 15_000, "the run is committed");
    proxy.set("pass"); // the stuck connection is dropped; a fresh one can answer the check
    const a = await answer;
    expect(a.status).toBe(202);
    expect(a.body).toMatchObject({ accepted: 1, duplicates: 0 });
    expect(a.body?.runIds).toEqual(await runsOf("lost-reply-a"));
  });

  it("the statement committed, its reply swallowed, no check can run before the bound → no answer; a retry is a duplicate", async () => {
    // The commit starts before the 1 s timeout can fire (no I/O before it), so it is pending then.
    const b = await listen(await straightToCommit({ ingest: other.store.engine.ingest }), { timeoutMs: 1_000, outcomeGraceMs: 500 });
    await warm(b, "warm-b");
    proxy.set("drop-replies");
    const a = await post(b, "lost-reply-b");
    expect(a.status).toBeUndefined();
    expect(a.error).toBeTruthy();
    await waitFor(async () => (await runsOf("lost-reply-b")).length === 1, 15_000, "the statement committed");
    proxy.set("pass");
    const retry = await post(b, "lost-reply-b");
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ accepted: 0, duplicates: 1 });
    expect(await runsOf("lost-reply-b")).toHaveLength(1);
  });

  it("a statement that never reached PostgreSQL (connections reset) → 503 + Retry-After, no run; the retry is accepted once", async () => {
    const b = await base({ timeoutMs: 20_000, outcomeGraceMs: 5_000 });
    await warm(b, "warm-c");
    proxy.set("reset");
    await waitFor(() => (other.store.poolStats()?.total ?? 0) === 0, 15_000, "the pool dropped its reset connections");
    const a = await post(b, "never-sent-c");
    expect(a.status).toBe(503);
    expect(a.retryAfter).toMatch(/^\d+$/);
    expect(await runsOf("never-sent-c")).toEqual([]);
    proxy.set("pass");
    const retry = await post(b, "never-sent-c");
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ accepted: 1, duplicates: 0 });
    expect(await runsOf("never-sent-c")).toHaveLength(1);
  });
});
