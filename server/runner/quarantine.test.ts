/**
 * Quarantine: a step that takes down every process that runs it (SIGKILL mid-step, as a crash or a
 * hang would) is resumed by the next worker only until it has stopped N workers; then its run fails
 * with "this step stopped its worker N times" instead of resuming forever. Real processes on one
 * real SQLite file (server/runner/testing/worker-child.ts).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSecretBox } from "../crypto/secret-box";
import { createTestDeps } from "../testing";
import { createAutomation } from "../services/automations";
import { getRunOrThrow, startRun } from "../services/runs";
import { registerStubs } from "./testing/stub-integration";
import { linearGraph, seedWorkspace } from "./testing/seed";
import { waitForRun } from "./testing/wait";

registerStubs();
const children: ChildProcess[] = [];
afterEach(async () => children.forEach((c) => c.exitCode === null && c.signalCode === null && c.kill("SIGKILL")));

/** Starts a worker process and resolves when it has exited (it is expected to die or be stopped). */
function runWorker(
  shared: Record<string, string>,
  key: string,
  env: Record<string, string>,
): { exited: Promise<NodeJS.Signals | number | null>; child: ChildProcess } {
  const child = spawn(process.execPath, ["--import", "tsx", "server/runner/testing/worker-child.ts"], {
    cwd: process.cwd(),
    env: { ...process.env, ...shared, SECRET_HEX: key, LEASE_MS: "600", CONCURRENCY: "2", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.push(child);
  return { child, exited: new Promise((r) => child.once("exit", (code, signal) => r(signal ?? code))) };
}

async function setup() {
  const key = randomBytes(32);
  const deps = await createTestDeps({ box: createSecretBox(key) });
  return { deps, key: key.toString("hex"), ws: await seedWorkspace(deps) };
}

describe("quarantine", () => {
  it("fails the run after the step stopped its worker N times, and never runs it again", async () => {
    const { deps, key, ws } = await setup();
    const marks = path.join(deps.dir, "marks.log");
    const a = await createAutomation(
      deps,
      ws.actor,
      ws.workspaceId,
      linearGraph([
        { key: "stub.echo", name: "before", config: { value: 1 } },
        { key: "stub.crash", name: "poison", config: { file: marks } },
        { key: "stub.echo", name: "after", config: { value: 2 } },
      ]),
    );
    const run = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id });

    // Three workers in turn: each resumes the step and dies running it.
    for (let i = 1; i <= 3; i++) {
      const w = runWorker(deps.childEnv, key, { QUARANTINE_AFTER: "3" });
      expect(await w.exited).toBe("SIGKILL");
      expect(fs.readFileSync(marks, "utf8").trim().split("\n")).toHaveLength(i);
    }
    // The fourth finds the step quarantined: the run fails, the step does not run again, the worker lives on.
    const fourth = runWorker(deps.childEnv, key, { QUARANTINE_AFTER: "3" });
    expect(await waitForRun(deps, run.id, ["failed", "succeeded"], 30_000)).toBe("failed");
    expect(fourth.child.exitCode).toBeNull();
    fourth.child.kill("SIGTERM");
    await fourth.exited;

    expect(fs.readFileSync(marks, "utf8").trim().split("\n")).toHaveLength(3);
    const detail = await getRunOrThrow(deps, ws.actor, ws.workspaceId, run.id);
    expect(detail.error!.message).toBe("poison: this step stopped its worker 3 times (its process died or hung while running it), so it was not run again");
    expect(detail.error!.nodeId).toBe("n2");
    const poison = detail.steps.find((s) => s.name === "poison")!;
    expect(poison.status).toBe("failed");
    expect(detail.steps.find((s) => s.name === "before")!.status).toBe("succeeded");
    expect(detail.steps.find((s) => s.name === "after")).toBeUndefined();
    deps.close();
  }, 120_000);

  it("resumes a step whose worker stopped fewer than N times, noting it in the step's logs", async () => {
    const { deps, key, ws } = await setup();
    const marks = path.join(deps.dir, "marks.log");
    const healed = path.join(deps.dir, "healed");
    const a = await createAutomation(
      deps,
      ws.actor,
      ws.workspaceId,
      linearGraph([{ key: "stub.crash", name: "flaky", config: { file: marks, unlessFile: healed } }]),
    );
    const run = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id });
    expect(await runWorker(deps.childEnv, key, { QUARANTINE_AFTER: "2" }).exited).toBe("SIGKILL");
    fs.writeFileSync(healed, "");
    const second = runWorker(deps.childEnv, key, { QUARANTINE_AFTER: "2" });
    expect(await waitForRun(deps, run.id, ["failed", "succeeded"], 30_000)).toBe("succeeded");
    second.child.kill("SIGTERM");
    await second.exited;
    const step = (await getRunOrThrow(deps, ws.actor, ws.workspaceId, run.id)).steps[1]!;
    expect(step.logs.map((l) => l.message)).toContain("resumed: the worker running this step stopped (1 of 2 allowed)");
    deps.close();
  }, 120_000);
});
