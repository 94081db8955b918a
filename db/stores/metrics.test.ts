/** Contract of the figures read at scrape time. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps, type TestDeps } from "@/server/testing";

let deps: TestDeps;
beforeEach(async () => {
  deps = await createTestDeps();
});
afterEach(async () => deps.close());

describe("metrics store", () => {
  it("counts runs by status (numbers on both backends)", async () => {
    expect(await deps.store.metrics.runsByStatus()).toEqual([]);
    const at = new Date().toISOString();
    for (const [id, status] of [
      ["r1", "queued"],
      ["r2", "queued"],
      ["r3", "running"],
      ["r4", "failed"],
    ]) {
      await deps.sql(
        "insert into runs (id, workspace_id, automation_id, version, status, trigger_node_id, event_id, created_at, updated_at) values (?, 'ws', 'aut', 1, ?, 't', 'e', ?, ?)",
        id,
        status,
        at,
        at,
      );
    }
    const rows = await deps.store.metrics.runsByStatus();
    expect(rows.sort((a, b) => a.status.localeCompare(b.status))).toEqual([
      { status: "failed", n: 1 },
      { status: "queued", n: 2 },
      { status: "running", n: 1 },
    ]);
  });

  it("counts outbox rows and gives the oldest one's creation (numbers on both backends)", async () => {
    expect(await deps.store.metrics.outbox()).toEqual({ rows: 0, oldestCreatedAt: null });
    const now = Date.now();
    for (const [id, created] of [
      ["run_a", now - 7000],
      ["run_b", now - 1000],
    ] as const) {
      await deps.sql("insert into outbox (run_id, available_at, created_at) values (?, ?, ?)", id, created, created);
    }
    expect(await deps.store.metrics.outbox()).toEqual({ rows: 2, oldestCreatedAt: now - 7000 });
  });
});
