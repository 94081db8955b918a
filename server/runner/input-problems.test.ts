/** A step whose required field came from an expression that gave nothing says which field and which expression. */
import { runnerHooks } from "@/server/runner-hooks";
import { expect, it } from "vitest";
import { createTestDeps } from "../testing";
import { startRunner } from "./runner-loop";
import { registerStubs } from "./testing/stub-integration";
import { runLinear, seedWorkspace } from "./testing/seed";

registerStubs();

it("an expression that gave no value for a required field fails the step naming the field and the expression", async () => {
  const deps = await createTestDeps();
  const ws = await seedWorkspace(deps);
  const runner = startRunner(deps, runnerHooks(deps), { concurrency: 2, pollMs: 20, maintenance: false });
  try {
    // Like a summary taken from an alert annotation the alert does not have.
    const run = await runLinear(deps, ws, [{ key: "stub.fetch", name: "get", config: { url: "{{ $trigger.data.annotations.summary }}" } }], {
      annotations: {},
    });
    expect(run.status).toBe("failed");
    expect(run.steps.find((s) => s.name === "get")?.error).toBe(
      "invalid input after resolving expressions: url: {{ $trigger.data.annotations.summary }} gave no value (Invalid input: expected string, received undefined)",
    );
  } finally {
    await runner.stop();
    deps.close();
  }
});
