import { runnerHooks } from "../runner-hooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps } from "../testing";
import { createAutomation, patchAutomation } from "../services/automations";
import { startRun } from "../services/runs";
import { fireSchedules, pruneHistory } from "./maintenance";
import { startRunner } from "./runner-loop";
import { registerStubs } from "./testing/stub-integration";
import { linearGraph, seedWorkspace } from "./testing/seed";
import { waitFor } from "./testing/wait";
import { flushUsage } from "../usage-counters";

registerStubs();
let deps: Awaited<ReturnType<typeof createTestDeps>>;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
let clock = new Date("2026-01-05T08:59:30.000Z");
beforeEach(async () => {
  clock = new Date("2026-01-05T08:59:30.000Z");
  deps = await createTestDeps({ now: () => clock });
  ws = await seedWorkspace(deps);
});
afterEach(async () => deps.close());
const count = async (sql: string, ...a: unknown[]) => Number((await deps.sql<{ n: number }>(sql, ...a))[0]!.n);

describe("maintenance", () => {
  it("fires a schedule trigger once per tick, in its time zone, only while enabled", async () => {
    const doc = linearGraph([{ key: "stub.echo", config: { value: "{{ $trigger.data.scheduledAt }}" } }], {
      key: "core.schedule",
      config: { cron: "0 10 * * *", timezone: "Europe/Paris" },
    });
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, { ...doc, enabled: true });
    expect(await fireSchedules(deps)).toBe(0);
    clock = new Date("2026-01-05T09:00:01.000Z"); // 10:00 in Paris (UTC+1)
    expect(await fireSchedules(deps)).toBe(1);
    expect(await fireSchedules(deps)).toBe(0); // same tick never twice
    const [ev] = await deps.sql<{ envelope: string | { data: { scheduledAt: string } } }>("select envelope from events where automation_id = ?", a.id);
    expect((typeof ev!.envelope === "string" ? JSON.parse(ev!.envelope) : ev!.envelope).data.scheduledAt).toBe("2026-01-05T09:00:00.000Z");
    await patchAutomation(deps, ws.actor, ws.workspaceId, a.id, { enabled: false });
    clock = new Date("2026-01-06T09:00:01.000Z");
    expect(await fireSchedules(deps)).toBe(0);
  });

  it("prunes finished runs beyond the per-automation count and counts usage", async () => {
    const realDeps = { ...deps, now: () => new Date() };
    const a = await createAutomation(realDeps, ws.actor, ws.workspaceId, linearGraph([{ key: "stub.echo", config: { value: 1 } }]));
    const runner = startRunner(realDeps, runnerHooks(realDeps), { pollMs: 10, maintenance: false });
    for (let i = 0; i < 12; i++) await startRun(realDeps, ws.actor, { workspaceId: ws.workspaceId, automationId: a.id });
    await waitFor(async () => (await count("select count(*) as n from runs where status = 'succeeded'")) === 12, 10_000);
    await runner.stop();
    await flushUsage(deps.store);
    expect(await count("select coalesce(sum(value), 0) as n from usage_counters where metric = 'runs.succeeded' and bucket not like 'd:%'")).toBe(12);
    expect(await count("select coalesce(sum(value), 0) as n from usage_counters where metric = 'steps.succeeded' and bucket not like 'd:%'")).toBe(12);
    expect(await pruneHistory(realDeps, { retentionDays: 30, retentionCount: 5 })).toBe(7);
    expect(await count("select count(*) as n from runs")).toBe(5);
    expect(await count("select count(*) as n from run_steps")).toBe(5);
  });
});
