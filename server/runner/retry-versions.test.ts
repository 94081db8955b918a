/**
 * Run recovery (issue #13): retrying a failed run with the version it started on, or with the current
 * saved version (a new run that reuses the succeeded steps and runs the rest from the current graph);
 * usage counts retries as attempts of one run and keeps waiting apart from working time. Both backends.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runnerHooks } from "../runner-hooks";
import { createTestDeps } from "../testing";
import { createAutomation, patchAutomation, replaceAutomation } from "../services/automations";
import { getRunOrThrow, listRuns, retryRun, startRun } from "../services/runs";
import { getUsage } from "../services/usage/get-usage";
import { createTask } from "../services/tasks/create-task";
import { flushUsage } from "../usage-counters";
import { startRunner, type Runner } from "./runner-loop";
import { registerStubs } from "./testing/stub-integration";
import { linearGraph, seedWorkspace } from "./testing/seed";
import { waitFor, waitForRun } from "./testing/wait";

registerStubs();
let deps: Awaited<ReturnType<typeof createTestDeps>>;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
let runner: Runner;
beforeEach(async () => {
  deps = await createTestDeps();
  ws = await seedWorkspace(deps);
  runner = startRunner(deps, runnerHooks(deps), { pollMs: 20, retry: { baseMs: 30, maxMs: 60 }, maintenance: false });
});
afterEach(async () => {
  await runner.stop();
  await deps.close();
});

const lines = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : []);

/** start → first (records that it ran) → second (fails with `message` unless fixed) → third (reads $steps.first). */
function silenceThenIssue(marks: string, second: Record<string, unknown>, secondName = "second") {
  return linearGraph([
    { key: "stub.mark", name: "first", config: { file: marks } },
    { key: "stub.fail", name: secondName, config: second },
    { key: "stub.echo", name: "third", config: { value: "{{ $steps.first.data.ok }}" } },
  ]);
}

async function failedRun(marks: string) {
  const a = await createAutomation(deps, ws.actor, ws.workspaceId, silenceThenIssue(marks, { message: "project NOPE does not exist" }));
  const r = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id });
  expect(await waitForRun(deps, r.id)).toBe("failed");
  return { a, r };
}

/**
 * The usage report once the runner has counted what the test waits for: a run's end is visible in the
 * database a moment before the runner's process counts it (on PostgreSQL another session can see the
 * commit first), so flush and read until `ready` holds (bounded), then assert exact values.
 */
async function usageWhen(ready: (t: Awaited<ReturnType<typeof getUsage>>["totals"]) => boolean) {
  let u = await getUsage(deps, ws.actor, ws.workspaceId, {});
  await waitFor(
    async () => {
      await flushUsage(deps.store);
      u = await getUsage(deps, ws.actor, ws.workspaceId, {});
      return ready(u.totals);
    },
    5_000,
    "usage counted",
  );
  return u;
}

describe("retry with the original or the current version", () => {
  it("after a fix, retry with the original version fails the same way; with the current version a new run reuses the first step and succeeds", async () => {
    const marks = path.join(deps.dir, "marks");
    const { a, r } = await failedRun(marks);
    const fixed = path.join(deps.dir, "fixed-but-only-in-v2");
    fs.writeFileSync(fixed, "");
    // v2: the fix (the step now passes), and `first` renamed: the reused output must answer to the new name.
    const v2 = silenceThenIssue(marks, { message: "project NOPE does not exist", unlessFile: fixed });
    v2.graph.nodes[1]!.name = "silence";
    v2.graph.nodes[3]!.config = { value: "{{ $steps.silence.data.ok }}" };
    expect((await replaceAutomation(deps, ws.actor, ws.workspaceId, a.id, { ...v2, name: a.name })).version).toBe(2);

    // The same run on v1 (its own version): the fix is not in it.
    const same = await retryRun(deps, ws.actor, ws.workspaceId, r.id, { version: "original" });
    expect(same).toMatchObject({ id: r.id, version: 1 });
    // Queued again; a runner may already have taken it, or (scale-out, a fast worker) run it to its end again:
    // the second attempt below shows it ran again.
    expect(["queued", "running", "failed"]).toContain(same.status);
    expect(await waitForRun(deps, r.id)).toBe("failed");
    const again = await getRunOrThrow(deps, ws.actor, ws.workspaceId, r.id);
    expect(again.steps.find((s) => s.name === "second")!.attempts.map((x) => x.error)).toEqual(["project NOPE does not exist", "project NOPE does not exist"]);
    expect(lines(marks)).toHaveLength(1);

    // A new run on v2 that takes over `first` (no second call) and runs the failed step and the rest.
    const next = await retryRun(deps, ws.actor, ws.workspaceId, r.id, { version: "current" });
    expect(next).toMatchObject({ version: 2, retryOf: r.id, mode: "production" });
    expect(next.id).not.toBe(r.id);
    expect(await waitForRun(deps, next.id)).toBe("succeeded");
    const d = await getRunOrThrow(deps, ws.actor, ws.workspaceId, next.id);
    expect(d.steps.map((s) => [s.name, s.status, s.origin?.kind ?? null])).toEqual([
      ["start", "succeeded", null],
      ["silence", "succeeded", "run"],
      ["second", "succeeded", null],
      ["third", "succeeded", null],
    ]);
    const firstStep = again.steps.find((s) => s.name === "first")!;
    expect(d.steps[1]!.origin).toEqual({ kind: "run", runId: r.id, stepId: firstStep.id, version: 1 });
    expect(d.steps[3]!.output!.data).toEqual({ value: true });
    expect(lines(marks)).toHaveLength(1); // the first step's upstream was not called again
    expect(d.event).toEqual(again.event); // same trigger event
    // The failed run stays as it failed, linked to its retry.
    const old = await getRunOrThrow(deps, ws.actor, ws.workspaceId, r.id);
    expect(old).toMatchObject({ status: "failed", version: 1, retriedBy: next.id });
    await expect(retryRun(deps, ws.actor, ws.workspaceId, r.id, { version: "current" })).rejects.toMatchObject({ code: "conflict" });
    await expect(retryRun(deps, ws.actor, ws.workspaceId, r.id, { version: "original" })).rejects.toMatchObject({ code: "conflict" });
    await expect(retryRun(deps, ws.actor, ws.workspaceId, next.id)).rejects.toMatchObject({ code: "conflict" }); // it succeeded

    // Usage: one run (its latest outcome), two retries; working time apart from the waits between attempts.
    // Both retries were by hand and the step fails permanently: no automatic retry, so nothing waited
    // between retries; the time until each retry is reported apart.
    const u = await usageWhen((t) => t.retries === 2 && !!t.runs.succeeded);
    expect(u.totals.runs).toEqual({ succeeded: 1 });
    expect(u.totals.retries).toBe(2);
    expect(u.totals.retryWaitMs).toBe(0);
    const work = [old, d].flatMap((x) => x.steps.filter((s) => !s.origin).flatMap((s) => s.attempts)).reduce((n, x) => n + (x.durationMs ?? 0), 0);
    expect(u.totals.runTimeMs).toBe(work);
    expect(d.timing.retryWaitMs).toBe(0);
    expect(d.timing.manualRetryDelayMs).toBe(Date.parse(d.createdAt) - Date.parse(old.finishedAt!));
    expect(old.timing.retryWaitMs).toBe(0);
    expect(old.timing.manualRetryDelayMs).toBeGreaterThan(0);
    expect(d.timing.workMs).toBe(
      d.steps
        .filter((s) => !s.origin)
        .flatMap((s) => s.attempts)
        .reduce((n, x) => n + (x.durationMs ?? 0), 0),
    );
  });

  it("a manual retry long after the failure is not a wait between retries; the automatic retries' backoff still is, in the run and in usage", async () => {
    // The clock runs 22 minutes behind until someone retries (the queue keeps real time, so every job stays due).
    let behindMs = 22 * 60_000;
    deps.now = () => new Date(Date.now() - behindMs);
    const fixed = path.join(deps.dir, "fixed");
    const a = await createAutomation(
      deps,
      ws.actor,
      ws.workspaceId,
      linearGraph([{ key: "stub.fail", name: "flaky", config: { message: "upstream 503", retryable: true, unlessFile: fixed } }]),
    );
    const r = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id });
    expect(await waitForRun(deps, r.id)).toBe("failed");
    const failed = await getRunOrThrow(deps, ws.actor, ws.workspaceId, r.id);
    expect(failed.steps.find((s) => s.name === "flaky")!.attempts).toHaveLength(5); // 1 + 4 automatic retries

    behindMs = 0;
    fs.writeFileSync(fixed, "");
    await retryRun(deps, ws.actor, ws.workspaceId, r.id, { version: "original" });
    expect(await waitForRun(deps, r.id)).toBe("succeeded");
    const d = await getRunOrThrow(deps, ws.actor, ws.workspaceId, r.id);
    const attempts = d.steps.find((s) => s.name === "flaky")!.attempts;
    expect(attempts).toHaveLength(6);
    const gap = (i: number) => Date.parse(attempts[i]!.startedAt) - Date.parse(attempts[i - 1]!.finishedAt!);
    // Waited between retries: the four automatic backoffs, not the 22 minutes until the manual retry.
    expect(d.timing.retryWaitMs).toBe(gap(1) + gap(2) + gap(3) + gap(4));
    expect(d.timing.retryWaitMs).toBeLessThan(60_000);
    // The attempt a person retried after is marked; the runner's own retries are not.
    expect(attempts.map((x) => !!x.manualRetryAt)).toEqual([false, false, false, false, true, false]);
    expect(d.timing.manualRetryDelayMs).toBe(Date.parse(attempts[4]!.manualRetryAt!) - Date.parse(attempts[4]!.finishedAt!));
    expect(d.timing.manualRetryDelayMs).toBeGreaterThanOrEqual(22 * 60_000);
    // Usage counts the same automatic waits, attempt by attempt.
    const u = await usageWhen((t) => t.retries === 1 && !!t.runs.succeeded);
    expect(u.totals.retryWaitMs).toBe(d.timing.retryWaitMs);
  });

  it("queues only nodes that did not succeed: a node added before the failed step runs, a node whose key changed runs again", async () => {
    const marks = path.join(deps.dir, "marks");
    const { a, r } = await failedRun(marks);
    const extra = path.join(deps.dir, "extra");
    const v2 = silenceThenIssue(marks, { unlessFile: marks });
    // first → added → second → third, with `first` now a different component (so not reused).
    v2.graph.nodes.push({ id: "added", name: "added", key: "stub.mark", config: { file: extra } });
    v2.graph.edges = [
      { from: "t", to: "n1" },
      { from: "n1", to: "added" },
      { from: "added", to: "n2" },
      { from: "n2", to: "n3" },
    ];
    await replaceAutomation(deps, ws.actor, ws.workspaceId, a.id, { ...v2, name: a.name });
    const next = await retryRun(deps, ws.actor, ws.workspaceId, r.id, { version: "current" });
    expect(await waitForRun(deps, next.id)).toBe("succeeded");
    const d = await getRunOrThrow(deps, ws.actor, ws.workspaceId, next.id);
    expect(d.steps.map((s) => [s.name, s.origin?.kind ?? null])).toEqual([
      ["start", null],
      ["first", "run"],
      ["added", null],
      ["second", null],
      ["third", null],
    ]);
    expect(lines(extra)).toHaveLength(1);

    // A key change: the node is not the same step any more, so it runs (once) in the new run.
    const { a: b, r: r2 } = await failedRun(path.join(deps.dir, "marks2"));
    const v3 = silenceThenIssue(marks, { unlessFile: marks });
    v3.graph.nodes[1] = { id: "n1", name: "first", key: "stub.echo", config: { value: { ok: "fresh" } } } as never;
    v3.graph.nodes[3]!.config = { value: "{{ $steps.first.data.value.ok }}" };
    await replaceAutomation(deps, ws.actor, ws.workspaceId, b.id, { ...v3, name: b.name });
    const n2 = await retryRun(deps, ws.actor, ws.workspaceId, r2.id, { version: "current" });
    expect(await waitForRun(deps, n2.id)).toBe("succeeded");
    const d2 = await getRunOrThrow(deps, ws.actor, ws.workspaceId, n2.id);
    expect(d2.steps.every((s) => !s.origin)).toBe(true);
    expect(d2.steps.at(-1)!.output!.data).toEqual({ value: "fresh" });
  });

  it("with the run's own version still current, retry with the current version continues the same run", async () => {
    const { r } = await failedRun(path.join(deps.dir, "marks"));
    const same = await retryRun(deps, ws.actor, ws.workspaceId, r.id, { version: "current" });
    expect(same.id).toBe(r.id);
    expect(await waitForRun(deps, r.id)).toBe("failed");
  });

  it("two retries of one failed run at once: one starts a new run, the other is refused", async () => {
    const marks = path.join(deps.dir, "marks");
    const { a, r } = await failedRun(marks);
    await replaceAutomation(deps, ws.actor, ws.workspaceId, a.id, { ...silenceThenIssue(marks, { unlessFile: marks }), name: a.name });
    // No runner while the three race: otherwise the original-version retry can run and fail again before
    // a "current" one starts, and that later retry of a failed run is rightly accepted (seen on PostgreSQL).
    await runner.stop();
    const results = await Promise.allSettled([
      retryRun(deps, ws.actor, ws.workspaceId, r.id, { version: "current" }),
      retryRun(deps, ws.actor, ws.workspaceId, r.id, { version: "current" }),
      retryRun(deps, ws.actor, ws.workspaceId, r.id, { version: "original" }),
    ]);
    expect(results.filter((x) => x.status === "fulfilled")).toHaveLength(1);
    expect(results.filter((x) => x.status === "rejected").map((x) => (x as PromiseRejectedResult).reason.code)).toEqual(["conflict", "conflict"]);
    const runs = (await listRuns(deps, ws.actor, ws.workspaceId, { automationId: a.id })).data;
    expect(runs.length).toBeLessThanOrEqual(2);
    runner = startRunner(deps, runnerHooks(deps), { pollMs: 20, retry: { baseMs: 30, maxMs: 60 }, maintenance: false });
    for (const x of runs) await waitForRun(deps, x.id);
  });

  it("a retry of a task step's run re-opens the failed task, and the retry's success completes it", async () => {
    const marks = path.join(deps.dir, "marks");
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, silenceThenIssue(marks, { message: "boom" }));
    const line = (await deps.store.lines.list(ws.workspaceId, { limit: 1 }))[0]!;
    await deps.store.lines.update(line.id, { steps: [{ name: "act", appId: a.id }] });
    const t = await createTask(deps, ws.actor, ws.workspaceId, { lineId: line.id, title: "Disk full", status: "open" });
    const task = async () => (await deps.store.tasks.get(t.id))!;
    await waitFor(async () => (await task()).status === "closed", 10_000, "task closed");
    expect((await task()).outcome).toBe("failed");
    const failed = (await listRuns(deps, ws.actor, ws.workspaceId, { automationId: a.id })).data[0]!;
    await replaceAutomation(deps, ws.actor, ws.workspaceId, a.id, { ...silenceThenIssue(marks, { unlessFile: marks }), name: a.name });
    const next = await retryRun(deps, ws.actor, ws.workspaceId, failed.id, { version: "current" });
    expect(next.taskId).toBe(t.id);
    await waitFor(async () => (await task()).status === "closed" && (await task()).outcome === "completed", 10_000, "task completed");
    const kinds = await deps.sql<{ kind: string; runId: string | null }>(
      'select kind, run_id as "runId" from task_activity where task_id = ? order by seq',
      t.id,
    );
    expect(kinds.map((k) => k.kind)).toEqual(["created", "opened", "step_started", "step_finished", "closed", "retried", "step_finished", "closed"]);
    expect(kinds.filter((k) => k.kind === "retried" || k.kind === "step_finished").at(-1)!.runId).toBe(next.id);
  });

  it("a run retried on its own version that fails again reaches the error handler again", async () => {
    const handler = await createAutomation(
      deps,
      ws.actor,
      ws.workspaceId,
      linearGraph([{ key: "stub.echo", name: "h", config: { value: "{{ $trigger.data.runId }}" } }]),
    );
    const { a, r } = await failedRun(path.join(deps.dir, "marks"));
    // That failure's follow-ups are done before the handler is set (else they could already reach it).
    await waitFor(async () => !(await deps.store.runs.get(r.id))!.followupAt, 5_000, "the first failure's follow-ups");
    await patchAutomation(deps, ws.actor, ws.workspaceId, a.id, { errorHandlerId: handler.id });
    // The first failure happened before the handler was set; two failures after it reach it twice.
    const { r: r2 } = { r: await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id }) };
    expect(await waitForRun(deps, r2.id)).toBe("failed");
    const handlerRuns = async () => (await listRuns(deps, ws.actor, ws.workspaceId, { automationId: handler.id })).data.length;
    await waitFor(async () => (await handlerRuns()) === 1, 10_000, "the handler's first run");
    await retryRun(deps, ws.actor, ws.workspaceId, r2.id);
    expect(await waitForRun(deps, r2.id)).toBe("failed");
    await waitFor(async () => (await handlerRuns()) === 2, 10_000, "the handler's second run");
    expect(r.id).not.toBe(r2.id);
  });
});
