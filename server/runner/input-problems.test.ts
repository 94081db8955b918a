/** A step whose required field came from an expression that gave nothing says which field and which expression. */
import { runnerHooks } from "@/server/runner-hooks";
import { expect, it } from "vitest";
import { createTestDeps } from "../testing";
import { createAutomation } from "../services/automations";
import { getRunOrThrow, startRun } from "../services/runs";
import { startRunner } from "./runner-loop";
import { registerStubs } from "./testing/stub-integration";
import { linearGraph, seedWorkspace } from "./testing/seed";
import { waitForRun } from "./testing/wait";

registerStubs();

it("an expression that gave no value for a required field fails the step naming the field and the expression", async () => {
  const deps = await createTestDeps();
  const ws = await seedWorkspace(deps);
  const runner = startRunner(deps, runnerHooks(deps), { concurrency: 2, pollMs: 20, maintenance: false });
  try {
    // Like a summary taken from an alert annotation the alert does not have.
    const a = await createAutomation(
      deps,
      ws.actor,
      ws.workspaceId,
      linearGraph([{ key: "stub.fetch", name: "get", config: { url: "{{ $trigger.data.annotations.summary }}" } }]),
    );
    const r = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id, payload: { annotations: {} } });
    await waitForRun(deps, r.id);
    const run = await getRunOrThrow(deps, ws.actor, ws.workspaceId, r.id);
    expect(run.status).toBe("failed");
    expect(run.steps.find((s) => s.name === "get")?.error).toBe(
      "invalid input after resolving expressions: url: {{ $trigger.data.annotations.summary }} gave no value (Invalid input: expected string, received undefined)",
    );
  } finally {
    await runner.stop();
    deps.close();
  }
});
