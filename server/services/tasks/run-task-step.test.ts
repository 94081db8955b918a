import { runnerHooks } from "../../runner-hooks";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
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
  deps.close();
});

const task = (id: string) => deps.db.$client.prepare("select status, outcome, current_step as step from tasks where id = ?").get(id) as { status: string; outcome: string | null; step: number };
const activity = (id: string) => deps.db.$client.prepare("select kind, run_id as runId, step_index as step from task_activity where task_id = ? order by seq").all(id) as Array<{ kind: string; runId: string | null; step: number | null }>;

describe("tasks on a line", () => {
  it("runs each step's automation with the task as trigger, fails on a failed step, and retries from it", async () => {
    const flag = path.join(deps.dir, "fixed");
    const one = await createAutomation(deps, ws.actor, ws.workspaceId, linearGraph([{ key: "stub.echo", name: "e", config: { value: "{{ $trigger.data.title }}" } }]));
    const two = await createAutomation(deps, ws.actor, ws.workspaceId, linearGraph([{ key: "stub.fail", name: "f", config: { unlessFile: flag, message: "needs approval" } }]));
    const line = deps.db.$client.prepare("select id from lines where workspace_id = ?").get(ws.workspaceId) as { id: string };
    deps.db.$client.prepare("update lines set steps = ? where id = ?").run(JSON.stringify([{ name: "triage", appId: one.id }, { name: "act", appId: two.id }]), line.id);

    const t = await createTask(deps, ws.actor, ws.workspaceId, { lineId: line.id, title: "Disk full on db-1", status: "open" });
    await waitFor(() => task(t.id).status === "closed", 10_000, "task closed");
    expect(task(t.id)).toMatchObject({ outcome: "failed", step: 1 });
    const firstRun = activity(t.id).find((a) => a.kind === "step_started")!.runId!;
    const out = deps.db.$client.prepare("select output from run_steps where run_id = ?").get(firstRun) as { output: string };
    expect(JSON.parse(out.output).data).toEqual({ value: "Disk full on db-1" });
    const ev = deps.db.$client.prepare("select e.envelope from runs r join events e on e.id = r.event_id where r.id = ?").get(firstRun) as { envelope: string };
    expect(JSON.parse(ev.envelope)).toMatchObject({ type: "core.task", data: { id: t.id, title: "Disk full on db-1" } });

    fs.writeFileSync(flag, "");
    await transitionTask(deps, ws.actor, ws.workspaceId, t.id, { action: "retry" });
    await waitFor(() => task(t.id).status === "closed", 10_000, "task closed again");
    expect(task(t.id)).toMatchObject({ outcome: "completed", step: 1 });
    const kinds = activity(t.id).map((a) => `${a.kind}${a.step ?? ""}`);
    expect(kinds).toEqual(["created", "opened", "step_started0", "step_finished0", "step_started1", "step_finished1", "closed1", "retried1", "step_started1", "step_finished1", "closed"]);
    expect(activity(t.id).filter((a) => a.kind.startsWith("step_")).every((a) => a.runId)).toBe(true);
  });
});
