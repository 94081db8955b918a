/**
 * Contract of the engine's step commit (`store.engine.commitStep`), on the backend under test: a
 * step's outcome is written only under the lease it was claimed with (fencing), and a step that
 * finishes after its run was cancelled keeps its record as `cancelled`.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunRow, StepCommit, StepJob } from "../engine";
import { createTestStorage, type TestStorage } from "../testing";
import { envOf, iso, queuedRun, seedWorkspace } from "./testing/fixtures";

let t: TestStorage;
let ws: string;
beforeEach(async () => {
  t = await createTestStorage();
  ws = await seedWorkspace(t.store);
});
afterEach(async () => {
  await t.close();
});

const nodeInfo = (nodeId: string) => ({ name: nodeId, key: "k" });

/** A run whose first step ("a") is claimed by worker w1 with token tok1. */
async function claimedStep(): Promise<{ run: RunRow; job: StepJob }> {
  const made = await queuedRun(t, ws);
  await t.sql(
    "update jobs set status = 'leased', lease_owner = 'w1', lease_token = 'tok1', lease_until = ?, attempts = 1 where id = ?",
    Date.now() + 60_000,
    made.jobId,
  );
  await t.sql("update runs set status = 'running', started_at = ? where id = ?", iso(), made.runId);
  const run = (await t.store.engine.loadRun(made.runId))!;
  return {
    run,
    job: { id: made.jobId, runId: run.id, automationId: "aut_1", nodeId: "a", parentStepId: null, attempts: 1, runStatus: "running", token: "tok1", stops: 0 },
  };
}

function succeeded(run: RunRow, job: StepJob, owner = "w1"): StepCommit {
  const at = iso();
  return {
    job,
    owner,
    leaseMs: 60_000,
    now: new Date(),
    run,
    step: {
      id: job.id,
      runId: run.id,
      nodeId: "a",
      name: "a",
      key: "k",
      parentStepId: null,
      status: "succeeded",
      input: { value: 7 },
      output: envOf("A"),
      state: null,
      attempts: [{ startedAt: at, finishedAt: at, durationMs: 3 }],
      logs: [],
      error: null,
      createdAt: at,
      startedAt: at,
      finishedAt: at,
    },
    queue: { kind: "complete" },
    children: ["b"],
    runEffect: { kind: "completeIfDone" },
    nodeInfo,
  };
}

const stepRows = (runId: string) =>
  t.sql<{ id: string; status: string; input: unknown; attempts: unknown; error: string | null }>(
    "select id, status, input, attempts, error from run_steps where run_id = ? order by created_at, id",
    runId,
  );
const json = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v);

describe("engine: committing a step", () => {
  it("under its lease: the step is recorded, its job done and the next step queued, leased to the same worker", async () => {
    const { run, job } = await claimedStep();
    const r = await t.store.engine.commitStep(succeeded(run, job));
    expect(r.kind).toBe("ok");
    const next = r.kind === "ok" ? r.next : [];
    expect(next.map((j) => j.nodeId)).toEqual(["b"]);
    expect((await stepRows(run.id)).map((s) => s.status)).toEqual(["succeeded"]);
    const jobs = await t.sql<{ id: string; step_id: string; status: string; lease_owner: string; lease_token: string; attempts: number; payload: unknown }>(
      "select id, step_id, status, lease_owner, lease_token, attempts, payload from jobs where run_id = ?",
      run.id,
    );
    expect(jobs.map((j) => ({ ...j, payload: json(j.payload) }))).toEqual([
      {
        id: next[0]!.id,
        step_id: next[0]!.id,
        status: "leased",
        lease_owner: "w1",
        lease_token: next[0]!.token,
        attempts: 1,
        payload: { nodeId: "b", parentStepId: job.id },
      },
    ]);
    // The next step commits under its own lease and ends the run.
    const last = await t.store.engine.commitStep({
      ...succeeded(run, next[0]!),
      children: [],
      step: { ...succeeded(run, next[0]!).step, nodeId: "b", parentStepId: job.id },
    });
    expect(last.kind === "ok" && last.finished?.status).toBe("succeeded");
    expect(await t.sql("select id from jobs where run_id = ?", run.id)).toEqual([]);
  });

  it("fanning out: one job per next step, each leased to the worker, the finished step's job gone", async () => {
    const { run, job } = await claimedStep();
    const r = await t.store.engine.commitStep({ ...succeeded(run, job), children: ["b", "c", "d"] });
    const next = r.kind === "ok" ? r.next : [];
    expect(next.map((j) => j.nodeId)).toEqual(["b", "c", "d"]);
    const jobs = await t.sql<{ id: string; lease_token: string }>("select id, lease_token from jobs where run_id = ? order by id", run.id);
    expect(jobs).toEqual(next.map((j) => ({ id: j.id, lease_token: j.token })).sort((a, b) => a.id.localeCompare(b.id)));
    expect(jobs.map((j) => j.id)).not.toContain(job.id);
  });

  it("after its run was cancelled: the step keeps its record (inputs, attempts) as cancelled, nothing is queued", async () => {
    const { run, job } = await claimedStep();
    expect(await t.store.runs.finish(run.id, "cancelled", null, new Date(), nodeInfo)).not.toBeNull();
    const r = await t.store.engine.commitStep(succeeded(run, job));
    expect(r.kind).toBe("cancelled");
    const [step] = await stepRows(run.id);
    expect(step!.status).toBe("cancelled");
    expect(json(step!.input)).toEqual({ value: 7 });
    expect(json(step!.attempts)).toHaveLength(1);
    expect(await t.sql("select id from jobs where run_id = ?", run.id)).toEqual([]);
    expect((await t.sql<{ status: string }>("select status from runs where id = ?", run.id))[0]!.status).toBe("cancelled");
  });

  it("when its lease was taken over by another worker, or its job is gone, nothing is written", async () => {
    const { run, job } = await claimedStep();
    await t.sql("update jobs set lease_owner = 'w2', lease_token = 'tok2' where id = ?", job.id);
    expect((await t.store.engine.commitStep(succeeded(run, job))).kind).toBe("fenced");
    // The same worker with a stale token (it claimed the job again after its lease expired) is fenced too.
    await t.sql("update jobs set lease_owner = 'w1', lease_token = 'tok2' where id = ?", job.id);
    expect((await t.store.engine.commitStep(succeeded(run, job))).kind).toBe("fenced");
    await t.sql("delete from jobs where id = ?", job.id);
    expect((await t.store.engine.commitStep(succeeded(run, job))).kind).toBe("fenced");
    expect(await stepRows(run.id)).toEqual([]);
    expect((await t.sql<{ status: string }>("select status from runs where id = ?", run.id))[0]!.status).toBe("running");
  });
});
