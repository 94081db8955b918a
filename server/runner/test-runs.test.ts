/**
 * Test runs (issue #13): run a single step, or from a node on, with the trigger event and the outputs
 * before it taken from pinned data or the last run. The node under test really runs; nothing before it
 * runs again; pinned data never reaches production runs; a test is not a production run (usage, tasks,
 * error handlers). Both backends.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runnerHooks } from "../runner-hooks";
import { createTestDeps } from "../testing";
import { createAutomation, patchAutomation, replaceAutomation } from "../services/automations";
import { getRunOrThrow, listRuns, startRun, startTestRun, retryRun } from "../services/runs";
import { getUsage } from "../services/usage/get-usage";
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
  runner = startRunner(deps, runnerHooks(deps), { pollMs: 20, maintenance: false });
});
afterEach(async () => {
  await runner.stop();
  await deps.close();
});

const lines = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : []);
const env = (data: unknown) => ({ output: { type: "stub.mark", timestamp: "2030-01-01T00:00:00.000Z", data } });

/** start → upstream (records that it ran) → target (echoes what it read from upstream) → after (records that it ran). */
function chain(dir: string) {
  return linearGraph([
    { key: "stub.mark", name: "upstream", config: { file: path.join(dir, "upstream") } },
    { key: "stub.echo", name: "target", config: { value: "{{ $steps.upstream.data }}" } },
    { key: "stub.mark", name: "after", config: { file: path.join(dir, "after") } },
  ]);
}

const test = (automationId: string, nodeId: string, extra: Partial<Parameters<typeof startTestRun>[2]> = {}) =>
  startTestRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId, nodeId, ...extra });

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

describe("test runs", () => {
  it("runs a single step with pinned upstream data: nothing before or after it runs, and it is recorded as a test", async () => {
    const g = chain(deps.dir);
    g.graph.nodes[1] = { ...g.graph.nodes[1]!, pinned: env({ ok: "pinned", silenceID: "s-1" }) } as never;
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, g);
    const r = await test(a.id, "n2");
    expect(r).toMatchObject({ mode: "test", test: { nodeId: "n2", single: true }, dataFrom: "an empty manual event and pinned data" });
    expect(await waitForRun(deps, r.id)).toBe("succeeded");
    const d = await getRunOrThrow(deps, ws.actor, ws.workspaceId, r.id);
    expect(d.steps.map((s) => [s.name, s.status, s.origin?.kind ?? null])).toEqual([
      ["start", "succeeded", null],
      ["upstream", "succeeded", "pinned"],
      ["target", "succeeded", null],
    ]);
    expect(d.steps[2]!.output!.data).toEqual({ value: { ok: "pinned", silenceID: "s-1" } });
    expect(lines(path.join(deps.dir, "upstream"))).toEqual([]);
    expect(lines(path.join(deps.dir, "after"))).toEqual([]);

    // Production runs never see pinned data: the upstream step really runs.
    const prod = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id });
    expect(await waitForRun(deps, prod.id)).toBe("succeeded");
    const p = await getRunOrThrow(deps, ws.actor, ws.workspaceId, prod.id);
    expect(p.steps.map((s) => s.origin ?? null)).toEqual([null, null, null, null]);
    expect(p.steps[2]!.output!.data).toEqual({ value: { ok: true } });
    expect(lines(path.join(deps.dir, "upstream"))).toHaveLength(1);

    // Usage: the test is not a production run, and its step is not a production step.
    const u = await usageWhen((t) => !!t.runs.succeeded && !!t.testRuns.succeeded);
    expect(u.totals.runs).toEqual({ succeeded: 1 });
    expect(u.totals.testRuns).toEqual({ succeeded: 1 });
    expect(u.totals.steps).toEqual({ succeeded: 3 });
    const runs = (await listRuns(deps, ws.actor, ws.workspaceId, { automationId: a.id })).data;
    expect(runs.map((x) => x.mode).sort()).toEqual(["production", "test"]);
    await expect(retryRun(deps, ws.actor, ws.workspaceId, r.id)).rejects.toMatchObject({ code: "conflict" });
  });

  it("takes the trigger event and upstream outputs from the last run that reached the node, pinned data winning node by node", async () => {
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, chain(deps.dir));
    // No run yet and nothing pinned (the manual trigger alone is not enough: upstream has no data).
    await expect(test(a.id, "n2", { source: "run" })).rejects.toMatchObject({
      code: "unprocessable",
      message: "No data for upstream yet: pin their output, or run the automation once so that it reaches target.",
    });
    const prod = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id, payload: { alert: "DiskFull" } });
    expect(await waitForRun(deps, prod.id)).toBe("succeeded");
    const first = await getRunOrThrow(deps, ws.actor, ws.workspaceId, prod.id);

    const r = await test(a.id, "n2", { scope: "downstream" });
    expect(r.dataFrom).toBe(`run ${prod.id}`);
    expect(await waitForRun(deps, r.id)).toBe("succeeded");
    const d = await getRunOrThrow(deps, ws.actor, ws.workspaceId, r.id);
    expect(d.event).toEqual(first.event);
    expect(d.steps.map((s) => [s.name, s.origin?.kind ?? null])).toEqual([
      ["start", null],
      ["upstream", "run"],
      ["target", null],
      ["after", null],
    ]);
    expect(d.steps[1]!.origin).toEqual({ kind: "run", runId: prod.id, stepId: first.steps[1]!.id, version: 1 });
    expect(lines(path.join(deps.dir, "upstream"))).toHaveLength(1); // not called again
    expect(lines(path.join(deps.dir, "after"))).toHaveLength(2); // downstream ran in the test

    // Pinning `upstream` (v2) wins over the run's output; `source: "run"` ignores the pin.
    const g = chain(deps.dir);
    g.graph.nodes[1] = { ...g.graph.nodes[1]!, pinned: env("typed by hand") } as never;
    await replaceAutomation(deps, ws.actor, ws.workspaceId, a.id, { ...g, name: a.name });
    const pinnedRun = await test(a.id, "n2");
    expect(await waitForRun(deps, pinnedRun.id)).toBe("succeeded");
    const pd = await getRunOrThrow(deps, ws.actor, ws.workspaceId, pinnedRun.id);
    expect(pd).toMatchObject({ version: 2, event: first.event });
    expect(pd.steps.at(-1)!.output!.data).toEqual({ value: "typed by hand" });
    const fromRun = await test(a.id, "n2", { source: "run", runId: prod.id });
    expect(await waitForRun(deps, fromRun.id)).toBe("succeeded");
    expect((await getRunOrThrow(deps, ws.actor, ws.workspaceId, fromRun.id)).steps.at(-1)!.output!.data).toEqual({ value: { ok: true } });
  });

  it("runs from a node on: pinned nodes after it emit their pinned data instead of calling their upstream, the node itself always runs", async () => {
    const g = chain(deps.dir);
    g.graph.nodes[1] = { ...g.graph.nodes[1]!, pinned: env({ n: 1 }) } as never;
    g.graph.nodes[3] = { ...g.graph.nodes[3]!, pinned: env({ ok: "pinned after" }) } as never;
    g.graph.nodes.push({ id: "n4", name: "last", key: "stub.echo", config: { value: "{{ $steps.after.data.ok }}" } });
    g.graph.edges.push({ from: "n3", to: "n4" });
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, g);
    // From the trigger: `upstream` and `after` are pinned (not run); `target` and `last` run.
    const r = await test(a.id, "t");
    expect(r.test).toEqual({ nodeId: "t", single: false });
    expect(await waitForRun(deps, r.id)).toBe("succeeded");
    const d = await getRunOrThrow(deps, ws.actor, ws.workspaceId, r.id);
    expect(d.steps.map((s) => [s.name, s.origin?.kind ?? null, s.attempts.length])).toEqual([
      ["start", null, 0],
      ["upstream", "pinned", 0],
      ["target", null, 1],
      ["after", "pinned", 0],
      ["last", null, 1],
    ]);
    expect(d.steps.at(-1)!.output!.data).toEqual({ value: "pinned after" });
    expect(lines(path.join(deps.dir, "upstream"))).toEqual([]);
    expect(lines(path.join(deps.dir, "after"))).toEqual([]);
    // The pinned node under test runs for real.
    const own = await test(a.id, "n3");
    expect(await waitForRun(deps, own.id)).toBe("succeeded");
    expect(lines(path.join(deps.dir, "after"))).toHaveLength(1);
    // A trigger has no step of its own.
    await expect(test(a.id, "t", { scope: "step" })).rejects.toMatchObject({ code: "validation_failed" });
  });

  it("a failed test reaches no error handler and no task", async () => {
    const handler = await createAutomation(deps, ws.actor, ws.workspaceId, linearGraph([{ key: "stub.echo", name: "h", config: { value: 1 } }]));
    const g = linearGraph([{ key: "stub.fail", name: "broken", config: { message: "nope" } }]);
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, g);
    await patchAutomation(deps, ws.actor, ws.workspaceId, a.id, { errorHandlerId: handler.id });
    const r = await test(a.id, "n1");
    expect(await waitForRun(deps, r.id)).toBe("failed");
    await waitFor(async () => !(await deps.store.runs.get(r.id))!.followupAt, 5_000, "follow-ups done");
    // A production failure does reach it (the same path, so the check above is not vacuous).
    const prod = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id });
    expect(await waitForRun(deps, prod.id)).toBe("failed");
    await waitFor(async () => (await listRuns(deps, ws.actor, ws.workspaceId, { automationId: handler.id })).data.length === 1, 10_000, "handler run");
    const handled = (await listRuns(deps, ws.actor, ws.workspaceId, { automationId: handler.id })).data[0]!;
    expect((await getRunOrThrow(deps, ws.actor, ws.workspaceId, handled.id)).event!.data).toMatchObject({ runId: prod.id });
    const u = await usageWhen((t) => !!t.testRuns.failed && !!t.runs.failed);
    expect(u.totals.testRuns).toEqual({ failed: 1 });
    expect(u.totals.runs.failed).toBe(1);
  });

  it("refuses a node that is not in the saved version, and steps with problems", async () => {
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, { ...chain(deps.dir), enabled: false });
    await expect(test(a.id, "nope")).rejects.toMatchObject({ code: "validation_failed", message: expect.stringContaining("save your changes first") });
    const broken = chain(deps.dir);
    broken.graph.nodes[2]!.config = { value: "{{ $steps.nosuch.data }}" };
    await replaceAutomation(deps, ws.actor, ws.workspaceId, a.id, { ...broken, name: a.name, enabled: false });
    await expect(test(a.id, "n2")).rejects.toMatchObject({ code: "validation_failed", message: expect.stringContaining("of the steps this test runs") });
    // A problem on a node the test does not run does not stand in the way (`upstream` is taken from pinned data).
    broken.graph.nodes[2]!.config = { value: "{{ $steps.upstream.data }}" };
    broken.graph.nodes[3]!.config = { file: 42 };
    broken.graph.nodes[1] = { ...broken.graph.nodes[1]!, pinned: env(1) } as never;
    await replaceAutomation(deps, ws.actor, ws.workspaceId, a.id, { ...broken, name: a.name, enabled: false });
    const ok = await test(a.id, "n2");
    expect(await waitForRun(deps, ok.id)).toBe("succeeded");
    await expect(test(a.id, "n2", { scope: "downstream" })).rejects.toMatchObject({ code: "validation_failed" });
  });
});
