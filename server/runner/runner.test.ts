import { runnerHooks } from "../runner-hooks";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps } from "../testing";
import { createAutomation, patchAutomation } from "../services/automations";
import { cancelRun, getRunOrThrow, retryRun, startRun } from "../services/runs";
import { startRunner, type Runner } from "./runner-loop";
import { registerStubs } from "./testing/stub-integration";
import { linearGraph, seedWorkspace } from "./testing/seed";
import { waitFor, waitForRun } from "./testing/wait";
import fs from "node:fs";
import path from "node:path";

registerStubs();

/** Loopback upstream whose answers are scripted per path: a list of [status, headers, body] consumed in order. */
let server: http.Server;
let base = "";
const script = new Map<string, Array<{ status: number; headers?: Record<string, string>; body?: unknown; delayMs?: number }>>();
const hits = new Map<string, number[]>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const list = script.get(req.url!) ?? [];
    const next = list.length > 1 ? list.shift()! : (list[0] ?? { status: 404 });
    hits.set(req.url!, [...(hits.get(req.url!) ?? []), Date.now()]);
    setTimeout(() => {
      res.writeHead(next.status, { "content-type": "application/json", ...next.headers });
      res.end(JSON.stringify(next.body ?? {}));
    }, next.delayMs ?? 0);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => server.close());

let deps: Awaited<ReturnType<typeof createTestDeps>>;
let runner: Runner;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;

beforeEach(async () => {
  deps = await createTestDeps();
  ws = await seedWorkspace(deps);
  runner = startRunner(deps, runnerHooks(deps), { concurrency: 8, pollMs: 20, retry: { baseMs: 50, maxMs: 200 }, maintenance: false });
});
afterEach(async () => {
  await runner.stop();
  deps.close();
});

async function run(graph: ReturnType<typeof linearGraph>, payload: unknown = { n: 2 }) {
  const a = await createAutomation(deps, ws.actor, ws.workspaceId, graph);
  const r = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id, payload });
  await waitForRun(deps, r.id);
  return { automation: a, detail: await getRunOrThrow(deps, ws.actor, ws.workspaceId, r.id) };
}

describe("runner", () => {
  it("runs a 3-step chain with expressions against $trigger and $steps, recording every step (secrets masked)", async () => {
    const { detail } = await run(
      linearGraph([
        { key: "stub.echo", name: "a", config: { value: "{{ $trigger.data.n * 10 }}", secret: "hunter22" } },
        { key: "stub.echo", name: "b", config: { value: "a said {{ $steps.a.data.value }}" } },
        { key: "core.filter", name: "c", config: { condition: "{{ $steps.a.data.value = 20 }}" } },
      ]),
    );
    expect(detail.status).toBe("succeeded");
    expect(detail.steps.map((s) => [s.name, s.status])).toEqual([
      ["start", "succeeded"],
      ["a", "succeeded"],
      ["b", "succeeded"],
      ["c", "succeeded"],
    ]);
    expect(detail.steps[1]!.output).toMatchObject({ type: "stub.echo", data: { value: 20 } });
    expect(detail.steps[1]!.output!.timestamp).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(detail.steps[1]!.input).toEqual({ value: 20, secret: "••••••" });
    expect(JSON.stringify(detail)).not.toContain("hunter22");
    expect(detail.steps[2]!.output!.data).toEqual({ value: "a said 20" });
    expect(detail.steps[1]!.logs[0]!.message).toBe("echo");
    expect(detail.steps[1]!.attempts).toHaveLength(1);
  });

  it("retries 429 (honouring Retry-After), 503 and a timeout, then succeeds", async () => {
    script.set("/flaky", [
      { status: 429, headers: { "retry-after": "1" }, body: { message: "slow down" } },
      { status: 503, body: { message: "unavailable" } },
      { status: 200, body: { ok: 1 }, delayMs: 1500 },
      { status: 200, body: { ok: 2 } },
    ]);
    const { detail } = await run(linearGraph([{ key: "stub.fetch", name: "get", config: { url: `${base}/flaky`, timeoutMs: 500 } }]));
    expect(detail.status).toBe("succeeded");
    const step = detail.steps[1]!;
    expect(step.attempts.map((a) => a.error ?? "ok")).toEqual([
      expect.stringContaining("429"),
      expect.stringContaining("503"),
      expect.stringContaining("timed out"),
      "ok",
    ]);
    const t = hits.get("/flaky")!;
    expect(t[1]! - t[0]!).toBeGreaterThanOrEqual(950); // Retry-After: 1
    expect(step.output!.data).toEqual({ body: { ok: 2 } });
  });

  it("fails at once on a 400 with the upstream's message", async () => {
    script.set("/bad", [{ status: 400, body: { message: "matchers are invalid" } }]);
    const { detail } = await run(
      linearGraph([
        { key: "stub.fetch", name: "get", config: { url: `${base}/bad` } },
        { key: "stub.echo", name: "after", config: { value: 1 } },
      ]),
    );
    expect(detail.status).toBe("failed");
    expect(detail.error!.message).toContain("matchers are invalid");
    expect(detail.error!.nodeId).toBe("n1");
    expect(detail.steps[1]!.attempts).toHaveLength(1);
    expect(detail.steps.find((s) => s.name === "after")).toBeUndefined();
  });

  it("names node and field when an expression fails, and refuses oversized envelopes", async () => {
    const r1 = await run(linearGraph([{ key: "stub.echo", name: "a", config: { value: "{{ $number('x') }}" } }]));
    expect(r1.detail.status).toBe("failed");
    expect(r1.detail.error!.message).toMatch(/^a: expression in value failed: /);
    const r2 = await run(linearGraph([{ key: "stub.big", name: "big", config: { bytes: 1_100_000 } }]));
    expect(r2.detail.error!.message).toMatch(/above the 1048576-byte limit/);
  });

  it("cancels a waiting run and retries a failed run from the failed step, keeping earlier results", async () => {
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, linearGraph([{ key: "core.wait", name: "w", config: { duration: "1h" } }]));
    const r = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id });
    await waitForRun(deps, r.id, ["waiting"]);
    await cancelRun(deps, ws.actor, ws.workspaceId, r.id);
    expect((await getRunOrThrow(deps, ws.actor, ws.workspaceId, r.id)).steps[1]!.status).toBe("cancelled");

    const flag = path.join(deps.dir, "fixed");
    const marks = path.join(deps.dir, "marks");
    const { detail } = await run(
      linearGraph([
        { key: "stub.mark", name: "first", config: { file: marks } },
        { key: "stub.fail", name: "second", config: { unlessFile: flag, message: "upstream rule: subtasks exist" } },
        { key: "stub.echo", name: "third", config: { value: "{{ $steps.first.data.ok }}" } },
      ]),
    );
    expect(detail.status).toBe("failed");
    expect(detail.error!.message).toContain("subtasks exist");
    fs.writeFileSync(flag, "");
    await retryRun(deps, ws.actor, ws.workspaceId, detail.id);
    await waitForRun(deps, detail.id);
    const after = await getRunOrThrow(deps, ws.actor, ws.workspaceId, detail.id);
    expect(after.status).toBe("succeeded");
    expect(after.steps.map((s) => s.status)).toEqual(["succeeded", "succeeded", "succeeded", "succeeded"]);
    expect(after.steps[3]!.output!.data).toEqual({ value: true });
    expect(fs.readFileSync(marks, "utf8").trim().split("\n")).toHaveLength(1); // first step not re-run
  });

  it("bounds concurrency per automation (excess runs wait queued)", async () => {
    const marks = path.join(deps.dir, "marks");
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, {
      ...linearGraph([{ key: "stub.mark", name: "m", config: { file: marks, sleepMs: 300 } }]),
      concurrency: 1,
    });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id })).id);
    for (const id of ids) await waitForRun(deps, id);
    // With a concurrency of 1 the runs never overlapped: each started after the previous one finished.
    const runs = (await Promise.all(ids.map((id) => deps.store.runs.get(id))))
      .map((r) => ({ start: r!.startedAt!, end: r!.finishedAt! }))
      .sort((x, y) => x.start.localeCompare(y.start));
    for (let i = 1; i < runs.length; i++) expect(runs[i]!.start >= runs[i - 1]!.end).toBe(true);
  });

  it("starts the error-handler automation with the failed run's summary", async () => {
    const handler = await createAutomation(
      deps,
      ws.actor,
      ws.workspaceId,
      linearGraph([{ key: "stub.echo", name: "h", config: { value: "{{ $trigger.data.error }}" } }]),
    );
    const failing = await createAutomation(deps, ws.actor, ws.workspaceId, linearGraph([{ key: "stub.fail", name: "f", config: { message: "nope" } }]));
    await patchAutomation(deps, ws.actor, ws.workspaceId, failing.id, { errorHandlerId: handler.id });
    const r = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: failing.id });
    await waitForRun(deps, r.id);
    let hr: { id: string } | undefined;
    await waitFor(
      async () => !!(hr = (await deps.sql<{ id: string }>("select id from runs where automation_id = ?", handler.id))[0]),
      10_000,
      "the handler's run",
    );
    await waitForRun(deps, hr!.id);
    const d = await getRunOrThrow(deps, ws.actor, ws.workspaceId, hr!.id);
    expect(d.event).toMatchObject({ type: "core.error", data: { runId: r.id, failedNodeName: "f" } });
    expect(d.steps[1]!.output!.data).toEqual({ value: "f: nope" });
  });

  it("deduplicates starts with the same idempotency key", async () => {
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, linearGraph([{ key: "stub.echo", config: { value: 1 } }]));
    const one = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id, idempotencyKey: "k1" });
    const two = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id, idempotencyKey: "k1" });
    expect(two.id).toBe(one.id);
    expect(two.duplicate).toBe(true);
  });

  it("stops gracefully: finishes the step in flight, releases the rest, and another runner resumes", async () => {
    const marks = path.join(deps.dir, "marks");
    const step = { key: "stub.mark", config: { file: marks, sleepMs: 300 } };
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, linearGraph([step, step]));
    const r = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id });
    await waitFor(() => fs.existsSync(`${marks}.started`), 10_000, "step 1 in flight");
    await runner.stop();
    const rows = await deps.sql<{ status: string; owner: string | null }>("select status, lease_owner as owner from jobs where run_id = ?", r.id);
    expect(rows).toEqual([{ status: "queued", owner: null }]); // step 2 released, not lost
    expect((await getRunOrThrow(deps, ws.actor, ws.workspaceId, r.id)).steps[1]!.status).toBe("succeeded");
    runner = startRunner(deps, runnerHooks(deps), { pollMs: 20, maintenance: false });
    await waitForRun(deps, r.id);
    expect(fs.readFileSync(marks, "utf8").trim().split("\n")).toHaveLength(2);
  });

  it("counts attempts of a step that follows another (retry limit holds for chained steps)", async () => {
    script.set("/down", [{ status: 503, body: { message: "down" } }]);
    const { detail } = await run(
      linearGraph([
        { key: "stub.echo", name: "first", config: { value: 1 } },
        { key: "stub.fetch", name: "get", config: { url: `${base}/down` } },
      ]),
    );
    expect(detail.status).toBe("failed");
    expect(detail.steps[2]!.attempts).toHaveLength(5);
    expect(detail.error!.message).toContain("gave up after 5 attempts");
  });

  it("a stop that cannot wait gives the in-flight step back instead of failing the run", async () => {
    await runner.stop();
    runner = startRunner(deps, runnerHooks(deps), { pollMs: 20, maintenance: false, stopTimeoutMs: 100 });
    const marks = path.join(deps.dir, "slow");
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, linearGraph([{ key: "stub.mark", name: "slow", config: { file: marks, sleepMs: 1500 } }]));
    const r = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id });
    await waitFor(() => fs.existsSync(`${marks}.started`), 10_000, "the slow step in flight");
    await runner.stop();
    expect((await deps.store.runs.get(r.id))!.status).toBe("running");
    expect(await deps.sql("select status, lease_owner as owner from jobs where run_id = ?", r.id)).toEqual([{ status: "queued", owner: null }]);
    runner = startRunner(deps, runnerHooks(deps), { pollMs: 20, maintenance: false });
    await waitForRun(deps, r.id);
    expect((await deps.store.runs.get(r.id))!.status).toBe("succeeded");
  });
});
