/**
 * A step whose outcome could not be recorded (the database went away mid-step) is given back, and
 * giving it back is retried until it lands: regression for a run stuck "running" forever after
 * `pg_ctl stop -m immediate` (the give-back failed too, and the runner's heartbeat kept renewing the
 * lease of a job it no longer had in hand; found by the chaos suite). A commit that failed because the
 * database could not be reached is not given back: its outcome is committed again once the database
 * answers, and the step does not run twice.
 */
import { CommitOutcomeUnknownError } from "@/db/commit-outcome";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StepCommit } from "@/db/engine";
import { clearGraphCache } from "../graphs";
import { runnerHooks } from "../runner-hooks";
import { createAutomation } from "../services/automations";
import { startRun } from "../services/runs";
import { createTestDeps } from "../testing";
import { startRunner, type Runner } from "./runner-loop";
import { linearGraph, seedWorkspace } from "./testing/seed";
import { registerStubs } from "./testing/stub-integration";
import { waitForRun } from "./testing/wait";

registerStubs();

let deps: Awaited<ReturnType<typeof createTestDeps>>;
let runner: Runner | undefined;

beforeEach(async () => {
  deps = await createTestDeps();
});
afterEach(async () => {
  await runner?.stop();
  await deps.close();
});

describe("runner: giving back a step whose outcome could not be recorded", () => {
  it("retries the give-back while the database refuses it; the step then runs again and its run ends", async () => {
    const ws = await seedWorkspace(deps);
    // The step's commit is lost (its outcome unknown: it must not be committed again), and the database
    // "goes away" for the first two attempts to give it back.
    let commitFailures = 1;
    let releaseFailures = 2;
    const engine = deps.store.engine;
    const commitStep = engine.commitStep.bind(engine);
    engine.commitStep = async (c: StepCommit) => {
      if (c.step.nodeId !== "t" && commitFailures > 0) {
        commitFailures--;
        throw new CommitOutcomeUnknownError("the step's COMMIT got no reply: Connection terminated unexpectedly");
      }
      return commitStep(c);
    };
    const consumer = deps.queue.consumer.bind(deps.queue);
    let releases = 0;
    deps.queue.consumer = (o) => {
      const c = consumer(o);
      const release = c.release.bind(c);
      c.release = async (job, delayMs) => {
        releases++;
        if (releaseFailures > 0) {
          releaseFailures--;
          throw new Error("Connection terminated unexpectedly");
        }
        return release(job, delayMs);
      };
      return c;
    };
    runner = startRunner(deps, runnerHooks(deps), { concurrency: 4, pollMs: 20, leaseMs: 3000, maintenance: false });

    const a = await createAutomation(deps, ws.actor, ws.workspaceId, linearGraph([{ key: "stub.echo", name: "a", config: { value: 1 } }]));
    const r = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id, payload: {} });
    // The give-back lands on its third try (after 0.25 s + 0.5 s), the job is due 5 s later and runs again.
    expect(await waitForRun(deps, r.id, ["succeeded", "failed", "cancelled"], 30_000)).toBe("succeeded");
    expect(commitFailures).toBe(0);
    expect(releases).toBe(3);
    const steps = await deps.sql<{ status: string }>("select status from run_steps where run_id = ? and node_id = 'n1'", r.id);
    expect(steps.map((s) => s.status)).toEqual(["succeeded"]);
  });

  it("a commit refused because the database is unreachable is committed again once it answers: the step runs once", async () => {
    const ws = await seedWorkspace(deps);
    let commitFailures = 3;
    const engine = deps.store.engine;
    const commitStep = engine.commitStep.bind(engine);
    engine.commitStep = async (c: StepCommit) => {
      if (c.step.nodeId !== "t" && commitFailures > 0) {
        commitFailures--;
        throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
      }
      return commitStep(c);
    };
    const consumer = deps.queue.consumer.bind(deps.queue);
    let releases = 0;
    deps.queue.consumer = (o) => {
      const c = consumer(o);
      const release = c.release.bind(c);
      c.release = async (job, delayMs) => {
        releases++;
        return release(job, delayMs);
      };
      return c;
    };
    runner = startRunner(deps, runnerHooks(deps), { concurrency: 4, pollMs: 20, leaseMs: 3000, maintenance: false });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "give-back-"));
    const file = path.join(dir, "marks");
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, linearGraph([{ key: "stub.mark", name: "a", config: { file } }]));
    const r = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id, payload: {} });
    expect(await waitForRun(deps, r.id, ["succeeded", "failed", "cancelled"], 30_000)).toBe("succeeded");
    expect(commitFailures).toBe(0);
    expect(releases).toBe(0);
    expect(fs.readFileSync(file, "utf8").trim().split("\n")).toHaveLength(1);
    const steps = await deps.sql<{ status: string }>("select status from run_steps where run_id = ? and node_id = 'n1'", r.id);
    expect(steps.map((s) => s.status)).toEqual(["succeeded"]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a database error while loading the automation's graph is not a deleted automation: the step runs again and the run succeeds", async () => {
    const ws = await seedWorkspace(deps);
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, linearGraph([{ key: "stub.echo", name: "a", config: { value: 2 } }]));
    // A fresh version the runner has not cached; its first load fails as a busy pool would.
    const versions = deps.store.versions;
    const graph = versions.graph.bind(versions);
    let failures = 0;
    versions.graph = async (automationId: string, version: number) => {
      if (automationId === a.id && failures > 0) {
        failures--;
        throw new Error("timeout exceeded when trying to connect");
      }
      return graph(automationId, version);
    };
    const r = await startRun(deps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id, payload: {} });
    // The runner is a fresh process with nothing cached, and its first load of the graph fails.
    clearGraphCache();
    failures = 1;
    runner = startRunner(deps, runnerHooks(deps), { concurrency: 4, pollMs: 20, leaseMs: 3000, maintenance: false });
    expect(await waitForRun(deps, r.id, ["succeeded", "failed", "cancelled"], 30_000)).toBe("succeeded");
    expect(failures).toBe(0);
  });
});
