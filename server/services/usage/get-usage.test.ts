/** The usage report read from the stored counters (both backends). */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps, type TestDeps } from "../../testing";
import { seedWorkspace } from "../../runner/testing/seed";
import type { Actor } from "../../auth/permissions";
import { getUsage } from "./get-usage";
import { hourBucket } from "@/db/usage-buckets";
import { addUsage } from "./buckets";

let deps: TestDeps;
let ws: string;
let actor: Actor;
beforeEach(async () => {
  deps = await createTestDeps();
  ({ workspaceId: ws, actor } = await seedWorkspace(deps));
});
afterEach(async () => deps.close());

const at = (iso: string) => new Date(iso);

describe("getUsage", () => {
  it("totals every metric and groups by day or hour within the window", async () => {
    const add = (metric: string, by: number, iso: string) => addUsage(deps.store, ws, metric, by, at(iso));
    await add("runs.succeeded", 3, "2030-01-01T10:15:00Z");
    await add("runs.failed", 1, "2030-01-01T10:45:00Z");
    await add("steps.succeeded", 7, "2030-01-01T11:00:00Z");
    await add("run_ms", 1500, "2030-01-01T11:59:59Z");
    await add("events.received", 4, "2030-01-02T00:00:00Z");
    await add("tasks.created", 2, "2030-01-02T08:00:00Z");
    await add("tasks.closed", 1, "2030-01-02T09:00:00Z");
    await add("api.calls", 5, "2030-01-02T09:30:00Z");
    await add("api.calls", 5, "2030-01-02T09:10:00Z");
    await add("api.calls", 100, "2030-01-03T00:00:00Z"); // at `to`: excluded
    await addUsage(deps.store, "ws_other", "api.calls", 50, at("2030-01-02T09:00:00Z"));

    const day = await getUsage(deps, actor, ws, { from: "2030-01-01T10:30:00Z", to: "2030-01-03T00:00:00Z" });
    // The bucket holding `from` (10:00) is included.
    expect(day.totals).toEqual({
      runs: { succeeded: 3, failed: 1 },
      steps: { succeeded: 7 },
      runTimeMs: 1500,
      retries: 0,
      retryWaitMs: 0,
      testRuns: {},
      eventsReceived: 4,
      tasksCreated: 2,
      tasksClosed: 1,
      apiCalls: 10,
    });
    expect(day.buckets.map((b) => [b.start, b.apiCalls, b.runs])).toEqual([
      ["2030-01-01T00:00:00.000Z", 0, { succeeded: 3, failed: 1 }],
      ["2030-01-02T00:00:00.000Z", 10, {}],
    ]);
    const hour = await getUsage(deps, actor, ws, { from: "2030-01-02T09:00:00Z", to: "2030-01-02T10:00:00Z", granularity: "hour" });
    expect(hour.buckets).toEqual([
      {
        start: "2030-01-02T09:00:00.000Z",
        runs: {},
        steps: {},
        runTimeMs: 0,
        retries: 0,
        retryWaitMs: 0,
        testRuns: {},
        eventsReceived: 0,
        tasksCreated: 0,
        tasksClosed: 1,
        apiCalls: 10,
      },
    ]);
  });

  it("defaults to the last 30 days and refuses windows over 90 days or reversed", async () => {
    deps.now = () => at("2030-06-01T12:00:00Z");
    await addUsage(deps.store, ws, "api.calls", 1, at("2030-05-03T00:00:00Z"));
    await addUsage(deps.store, ws, "api.calls", 1, at("2030-05-01T00:00:00Z")); // 31 days before
    const r = await getUsage(deps, actor, ws, {});
    expect(r).toMatchObject({ from: "2030-05-02T12:00:00.000Z", to: "2030-06-01T12:00:00.000Z", granularity: "day", totals: { apiCalls: 1 } });
    await expect(getUsage(deps, actor, ws, { from: "2030-01-01T00:00:00Z", to: "2030-04-02T00:00:00Z" })).rejects.toMatchObject({ code: "validation_failed" });
    await expect(getUsage(deps, actor, ws, { from: "2030-01-02T00:00:00Z", to: "2030-01-01T00:00:00Z" })).rejects.toMatchObject({ code: "validation_failed" });
    expect(hourBucket(at("2030-01-01T10:59:59.999Z"))).toBe("2030-01-01T10:00:00.000Z");
  });

  it("answers 404 for a workspace outside the caller's organization", async () => {
    const other = await seedWorkspace(deps);
    await expect(getUsage(deps, actor, other.workspaceId, {})).rejects.toMatchObject({ code: "not_found" });
  });
});
