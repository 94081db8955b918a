import { afterEach, describe, expect, it } from "vitest";
import { createTestDeps } from "../testing";
import { getMetrics } from "./metrics";

let deps: Awaited<ReturnType<typeof createTestDeps>> | undefined;
afterEach(async () => deps?.close());

describe("/metrics registry", () => {
  it("exposes counters and database gauges in Prometheus text format", async () => {
    deps = await createTestDeps();
    const m = getMetrics();
    expect(getMetrics()).toBe(m); // one registry per process
    m.bindDb(deps.db);
    m.webhookDeliveries.inc({ result: "accepted" }, 3);
    m.stepDuration.observe({ key: "core.http", status: "succeeded" }, 0.2);
    const now = Date.now();
    deps.db.$client.prepare("insert into jobs (id, kind, status, available_at, attempts, created_at) values ('j1','step','queued',?,0,?)").run(now - 5000, now - 5000);
    const text = await m.registry.metrics();
    expect(text).toContain('conveyor_webhook_deliveries_total{result="accepted"} 3');
    expect(text).toMatch(/conveyor_step_duration_seconds_bucket\{le="0.25",key="core.http",status="succeeded"\} 1/);
    expect(text).toContain("conveyor_queue_depth 1");
    const age = Number(/^conveyor_queue_oldest_age_seconds (\S+)$/m.exec(text)![1]);
    expect(age).toBeGreaterThanOrEqual(4.9);
  });
});
