import { runnerHooks } from "../../runner-hooks";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonCol } from "@/db/testing";
import { createTestDeps } from "../../testing";
import { seedWorkspace, linearGraph } from "../../runner/testing/seed";
import { registerStubs } from "../../runner/testing/stub-integration";
import { startRunner, type Runner } from "../../runner/runner-loop";
import { waitFor } from "../../runner/testing/wait";
import { createAutomation } from "../automations";
import { createTask } from "./create-task";
import { transitionTask } from "./transition-task";

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

const task = async (id: string) =>
  (await deps.sql<{ status: string; outcome: string | null; step: number }>("select status, outcome, current_step as step from tasks where id = ?", id))[0]!;
const activity = (id: string) =>
  deps.sql<{ kind: string; runId: string | null; step: number | null }>(
    'select kind, run_id as "runId", step_index as step from task_activity where task_id = ? order by seq',
    id,
  );

describe("tasks on a line", () => {
  it("runs each step's automation with the task as trigger, fails on a failed step, and retries from it", async () => {
    const flag = path.join(deps.dir, "fixed");
    const one = await createAutomation(
      deps,
      ws.actor,
      ws.workspaceId,
      linearGraph([{ key: "stub.echo", name: "e", config: { value: "{{ $trigger.data.title }}" } }]),
    );
    const two = await createAutomation(
      deps,
      ws.actor,
      ws.workspaceId,
      linearGraph([{ key: "stub.fail", name: "f", config: { unlessFile: flag, message: "needs approval" } }]),
    );
    const line = (await deps.store.lines.list(ws.workspaceId, { limit: 1 }))[0]!;
    await deps.store.lines.update(line.id, {
      steps: [
        { name: "triage", appId: one.id },
        { name: "act", appId: two.id },
      ],
    });

    const t = await createTask(deps, ws.actor, ws.workspaceId, { lineId: line.id, title: "Disk full on db-1", status: "open" });
    await waitFor(async () => (await task(t.id)).status === "closed", 10_000, "task closed");
    expect(await task(t.id)).toMatchObject({ outcome: "failed", step: 1 });
    const firstRun = (await activity(t.id)).find((a) => a.kind === "step_started")!.runId!;
    const [out] = await deps.sql<{ output: unknown }>("select output from run_steps where run_id = ?", firstRun);
    expect(jsonCol<{ data: unknown }>(out!.output).data).toEqual({ value: "Disk full on db-1" });
    const [ev] = await deps.sql<{ envelope: unknown }>("select e.envelope from runs r join events e on e.id = r.event_id where r.id = ?", firstRun);
    expect(jsonCol(ev!.envelope)).toMatchObject({ type: "core.task", data: { id: t.id, title: "Disk full on db-1" } });

    fs.writeFileSync(flag, "");
    await transitionTask(deps, ws.actor, ws.workspaceId, t.id, { action: "retry" });
    await waitFor(async () => (await task(t.id)).status === "closed", 10_000, "task closed again");
    expect(await task(t.id)).toMatchObject({ outcome: "completed", step: 1 });
    const kinds = (await activity(t.id)).map((a) => `${a.kind}${a.step ?? ""}`);
    expect(kinds).toEqual([
      "created",
      "opened",
      "step_started0",
      "step_finished0",
      "step_started1",
      "step_finished1",
      "closed1",
      "retried1",
      "step_started1",
      "step_finished1",
      "closed",
    ]);
    expect((await activity(t.id)).filter((a) => a.kind.startsWith("step_")).every((a) => a.runId)).toBe(true);
  });
});
