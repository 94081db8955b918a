/** Contract of the runs store's recovery operations (derived runs, retries), on the backend under test. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestStorage, jsonCol, type TestStorage } from "../testing";
import type { Store } from "../store";
import type { DerivedResult } from "../types";
import { anotherProcess, race } from "./testing";
import { envOf, iso, queuedRun, seedWorkspace, uid } from "./testing/fixtures";

let t: TestStorage;
let ws: string;
let other: Store;
beforeEach(async () => {
  t = await createTestStorage();
  ws = await seedWorkspace(t.store);
  other = await anotherProcess(t.url);
});
afterEach(async () => {
  await other.close();
  await t.close();
});

/** A finished run with one succeeded and one failed step (the failed one queued again by `requeue`). */
async function failedRun(status: "failed" | "succeeded" = "failed") {
  const made = await queuedRun(t, ws);
  await t.sql("delete from jobs where run_id = ?", made.runId);
  const now = iso();
  const step = (id: string, nodeId: string, st: string, parent: string | null, output: unknown) =>
    t.sql(
      "insert into run_steps (id, run_id, node_id, name, key, parent_step_id, status, output, attempts, logs, created_at) values (?, ?, ?, ?, 'k', ?, ?, ?, ?, '[]', ?)",
      id,
      made.runId,
      nodeId,
      nodeId,
      parent,
      st,
      output === null ? null : JSON.stringify(output),
      JSON.stringify([{ startedAt: now, finishedAt: now, durationMs: 7 }]),
      now,
    );
  await step(made.jobId, "a", "succeeded", null, envOf("A"));
  await step(uid("stp"), "b", status, made.jobId, null);
  await t.sql("update runs set status = ?, finished_at = ? where id = ?", status, now, made.runId);
  return { runId: made.runId, eventId: made.eventId, stepA: made.jobId };
}

describe("runs store: derived runs and retries", () => {
  it("creates a derived run: seeds (parents mapped, origin kept), queued steps after them, the same event", async () => {
    const prev = await failedRun();
    const r = await t.store.runs.createDerived({
      workspaceId: ws,
      automationId: "aut_1",
      version: 2,
      triggerNodeId: "t",
      event: { id: prev.eventId },
      retryOf: prev.runId,
      mode: "production",
      seeds: [
        {
          ref: "x",
          parentRef: null,
          nodeId: "a",
          name: "renamed",
          key: "k",
          input: { q: 1 },
          output: envOf("A"),
          origin: { kind: "run", runId: prev.runId, stepId: prev.stepA, version: 1 },
        },
        { ref: "y", parentRef: "x", nodeId: "c", name: "c", key: "k", input: null, output: envOf("C"), origin: { kind: "pinned", version: 2 } },
      ],
      start: [
        { nodeId: "b", parentRef: "y" },
        { nodeId: "d", parentRef: null },
      ],
      at: new Date(),
    });
    if (!("runId" in r)) throw new Error("refused");
    expect(r).toMatchObject({ eventId: prev.eventId, finished: false });
    expect(await t.store.runs.get(r.runId)).toMatchObject({
      status: "queued",
      version: 2,
      retryOf: prev.runId,
      mode: "production",
      test: null,
      eventId: prev.eventId,
    });
    const steps = await t.store.runs.steps(r.runId);
    expect(steps.map((s) => [s.name, s.status, s.origin?.kind, s.attempts])).toEqual([
      ["renamed", "succeeded", "run", []],
      ["c", "succeeded", "pinned", []],
    ]);
    expect(steps[1]!.parentStepId).toBe(steps[0]!.id);
    const jobs = await t.store.runs.pendingJobs(r.runId);
    const byNode = new Map(jobs.map((j) => [(j.payload as { nodeId: string }).nodeId, (j.payload as { parentStepId: string | null }).parentStepId]));
    expect(byNode).toEqual(
      new Map([
        ["b", steps[1]!.id],
        ["d", null],
      ]),
    );
    // The engine reads the seeds as the chain of a queued step.
    expect(await t.store.engine.loadChain(steps[1]!.id)).toEqual({ renamed: envOf("A"), c: envOf("C") });
    expect(await t.store.runs.retriedBy(prev.runId)).toBe(r.runId);
    expect((await t.store.runs.stepTimings([prev.runId, r.runId])).map((x) => [x.runId === r.runId, x.origin?.kind ?? null, x.attempts.length]).sort()).toEqual(
      [
        [false, null, 1],
        [false, null, 1],
        [true, "pinned", 0],
        [true, "run", 0],
      ],
    );
  });

  it("refuses to retry a run that is not failed or cancelled, or that was retried already; requeue then refuses too", async () => {
    const ok = await failedRun("succeeded");
    const base = {
      workspaceId: ws,
      automationId: "aut_1",
      version: 2,
      triggerNodeId: "t",
      mode: "production" as const,
      seeds: [],
      start: [{ nodeId: "b", parentRef: null }],
      at: new Date(),
    };
    expect(await t.store.runs.createDerived({ ...base, event: { id: ok.eventId }, retryOf: ok.runId })).toEqual({ refused: "not_retryable" });
    const prev = await failedRun();
    const first = await t.store.runs.createDerived({ ...base, event: { id: prev.eventId }, retryOf: prev.runId });
    expect(first).toMatchObject({ finished: false });
    expect(await t.store.runs.createDerived({ ...base, event: { id: prev.eventId }, retryOf: prev.runId })).toEqual({
      refused: "retried",
      retriedBy: (first as { runId: string }).runId,
    });
    expect(await t.store.runs.requeue(prev.runId, new Date())).toBe("retried");
    expect((await t.store.runs.get(prev.runId))!.status).toBe("failed");
  });

  it("one of many concurrent retries of a run wins, across processes and kinds", async () => {
    const prev = await failedRun();
    const base = {
      workspaceId: ws,
      automationId: "aut_1",
      version: 2,
      triggerNodeId: "t",
      event: { id: prev.eventId },
      retryOf: prev.runId,
      mode: "production" as const,
      seeds: [],
      start: [{ nodeId: "b", parentRef: null }],
    };
    const results = await race<number | string | DerivedResult>([t.store, other], 8, (s, i) =>
      i % 4 === 3 ? s.runs.requeue(prev.runId, new Date()) : s.runs.createDerived({ ...base, at: new Date() }),
    );
    const won = results.filter((r) => (typeof r === "number" ? r > 0 : typeof r === "object" && r !== null && "runId" in r));
    expect(won).toHaveLength(1);
    const runs = await t.sql<{ n: number }>("select count(*) as n from runs where retry_of = ?", prev.runId);
    expect(Number(runs[0]!.n)).toBe(typeof won[0] === "number" ? 0 : 1);
  });

  it("a derived run with nothing to run succeeds at once; a test run records its pinned trigger event", async () => {
    const r = await t.store.runs.createDerived({
      workspaceId: ws,
      automationId: "aut_1",
      version: 1,
      triggerNodeId: "t",
      event: { envelope: envOf({ pinned: true }), source: "test" },
      mode: "test",
      test: { nodeId: "t", single: false },
      taskId: "tsk_1",
      taskStep: 0,
      seeds: [],
      start: [],
      at: new Date(),
    });
    if (!("runId" in r)) throw new Error("refused");
    expect(r.finished).toBe(true);
    expect(await t.store.runs.get(r.runId)).toMatchObject({ status: "succeeded", mode: "test", test: { nodeId: "t", single: false } });
    expect((await t.store.runs.get(r.runId))!.followupAt).not.toBeNull();
    const [ev] = await t.sql<{ source: string; envelope: unknown }>("select source, envelope from events where id = ?", r.eventId);
    expect({ source: ev!.source, envelope: jsonCol(ev!.envelope) }).toEqual({ source: "test", envelope: envOf({ pinned: true }) });
    expect(await t.store.runs.pendingJobs(r.runId)).toEqual([]);
  });
});
