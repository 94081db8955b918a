import { afterEach, describe, expect, it } from "vitest";
import { createTestDeps } from "../testing";
import { getMetrics } from "./metrics";

let deps: Awaited<ReturnType<typeof createTestDeps>> | undefined;
afterEach(async () => deps?.close());

function gauge(text: string, line: RegExp): number | undefined {
  const m = line.exec(text);
  return m ? Number(m[1]) : undefined;
}

describe("/metrics registry", () => {
  it("exposes counters and the runs-by-status gauge read from the database at scrape time", async () => {
    deps = await createTestDeps();
    const m = getMetrics();
    expect(getMetrics()).toBe(m); // one registry per process
    m.bind(deps);
    m.webhookDeliveries.inc({ result: "accepted" }, 3);
    m.stepDuration.observe({ key: "core.http", status: "succeeded" }, 0.2);
    const at = new Date().toISOString();
    const run = (id: string, status: string) =>
      deps!.sql(
        "insert into runs (id, workspace_id, automation_id, version, status, trigger_node_id, event_id, created_at, updated_at) values (?, 'ws_m', 'aut_m', 1, ?, 't', 'evt', ?, ?)",
        id,
        status,
        at,
        at,
      );
    await run("run_1", "succeeded");
    await run("run_2", "succeeded");
    await run("run_3", "failed");
    let text = await m.registry.metrics();
    expect(text).toContain('conveyor_webhook_deliveries_total{result="accepted"} 3');
    expect(text).toMatch(/conveyor_step_duration_seconds_bucket\{le="0.25",key="core.http",status="succeeded"\} 1/);
    expect(gauge(text, /^conveyor_runs\{status="succeeded"\} (\S+)$/m)).toBe(2);
    expect(gauge(text, /^conveyor_runs\{status="failed"\} (\S+)$/m)).toBe(1);
    // A status that no longer has runs disappears at the next scrape.
    await deps.sql("delete from runs where status = 'failed'");
    text = await m.registry.metrics();
    expect(gauge(text, /^conveyor_runs\{status="failed"\} (\S+)$/m)).toBeUndefined();
  });

  // The queue's gauges read the jobs table through the runner's queue (moves with the queue seam).
  it("exposes the queue depth and the age of the oldest ready job", async () => {
    deps = await createTestDeps();
    const m = getMetrics();
    m.bind(deps);
    const now = Date.now();
    await deps.sql("insert into jobs (id, kind, status, available_at, attempts, created_at) values ('j1','step','queued',?,0,?)", now - 5000, now - 5000);
    const text = await m.registry.metrics();
    expect(text).toContain("conveyor_queue_depth 1");
    expect(gauge(text, /^conveyor_queue_oldest_age_seconds (\S+)$/m)).toBeGreaterThanOrEqual(4.9);
  });
});
