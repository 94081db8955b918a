/**
 * Webhook ingest under concurrency, on whichever backend the run uses (two storages on one database
 * stand for two ingress processes): every delivery gets its own run and events row, and the intake's
 * delivery counter adds up even when batches of several processes race for its row (on PostgreSQL a
 * batch skips a counter row another batch holds and carries the count into a later update).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { envelope } from "@/integrations/core/define";
import { openStorage, type OpenedStorage } from "@/db/open";
import { createTestDeps, type TestDeps } from "../../testing";
import { waitFor } from "../../runner/testing/wait";
import { seedHookAutomation } from "../../roles/testing/seed-hook";

let deps: TestDeps;
let other: OpenedStorage;

beforeAll(async () => {
  deps = await createTestDeps();
  other = await openStorage(deps.url, { migrate: false });
});

afterAll(async () => {
  await other?.store.close();
  await deps?.close();
});

describe("webhook ingest from two processes at once", () => {
  it("stores one run per delivery and counts every delivery on the intake", async () => {
    const { hookPath, workspaceId, automationId } = await seedHookAutomation(deps);
    const head = await deps.store.engine.intakeHead(hookPath.split("/hooks/")[1]!);
    expect(head?.automationId).toBe(automationId);
    const intakeId = head!.id;
    const one = (i: number) => ({
      intakeId,
      runs: [
        {
          workspaceId,
          automationId,
          version: head!.automationVersion!,
          triggerNodeId: "t",
          firstNodes: ["f"],
          source: "webhook" as const,
          intakeId,
          dedupeScope: intakeId,
          dedupeKey: `d${i}`,
          envelope: envelope("core.webhook", { body: { ok: true, i }, headers: {}, query: {} }),
          at: new Date(),
        },
      ],
    });
    const N = 120;
    // Alternating engines, all in flight at once: batches of both "processes" overlap on the intake row.
    const results = await Promise.all(Array.from({ length: N }, (_, i) => (i % 2 ? other.store : deps.store).engine.ingest(one(i))));
    expect(results.every((r) => r.runIds.length === 1 && r.duplicates === 0)).toBe(true);
    expect(new Set(results.map((r) => r.runIds[0])).size).toBe(N);
    const count = async () => Number((await deps.sql<{ n: number }>("select event_count as n from intakes where id = ?", intakeId))[0]!.n);
    await waitFor(async () => (await count()) === N, 15_000, `event_count to reach ${N}`);
    const runs = Number((await deps.sql<{ n: number }>("select count(*) as n from runs where automation_id = ?", automationId))[0]!.n);
    expect(runs).toBe(N);
    // The same deliveries again (same dedupe keys): duplicates, no new run; still counted as deliveries.
    const again = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? other.store : deps.store).engine.ingest(one(i))));
    expect(again.every((r) => r.runIds.length === 0 && r.duplicates === 1)).toBe(true);
    await waitFor(async () => (await count()) === N + 10, 15_000, `event_count to reach ${N + 10}`);
  });

  // Only the PostgreSQL engine caches heads (SQLite reads them in-process each time).
  it.runIf(process.env.CONVEYOR_TEST_BACKEND === "postgres")("a cached head guards its ingest: nothing is stored when the intake changed since", async () => {
    const { hookPath, workspaceId, automationId } = await seedHookAutomation(deps);
    const token = hookPath.split("/hooks/")[1]!;
    await deps.store.engine.intakeHead(token);
    const head = (await deps.store.engine.intakeHead(token))!;
    expect(head.cached).toBe(true);
    const item = (guard: typeof head, key: string) => ({
      intakeId: head.id,
      guard,
      runs: [
        {
          workspaceId,
          automationId,
          version: head.automationVersion!,
          triggerNodeId: "t",
          firstNodes: ["f"],
          source: "webhook" as const,
          intakeId: head.id,
          dedupeScope: head.id,
          dedupeKey: key,
          envelope: envelope("core.webhook", { body: { ok: true }, headers: {}, query: {} }),
          at: new Date(),
        },
      ],
    });
    const events = async () => Number((await deps.sql<{ n: number }>("select count(*) as n from events where intake_id = ?", head.id))[0]!.n);
    const [stale, fine] = await Promise.all([
      deps.store.engine.ingest(item({ ...head, automationUpdatedAt: "2000-01-01T00:00:00.000Z" }, "g1")),
      deps.store.engine.ingest(item(head, "g2")),
    ]);
    expect(stale).toMatchObject({ stale: true, runIds: [] });
    expect(fine.stale).toBeUndefined();
    expect(fine.runIds).toHaveLength(1);
    expect(await events()).toBe(1);
    // A disable from another process: the head this process still caches no longer matches.
    await deps.sql("update intakes set status = 'disabled' where id = ?", head.id);
    expect(await deps.store.engine.ingest(item(head, "g3"))).toMatchObject({ stale: true, runIds: [] });
    expect(await events()).toBe(1);
    // The intake counts what was stored: the stale deliveries are taken back off its counter.
    const counted = async () => Number((await deps.sql<{ n: number }>("select event_count as n from intakes where id = ?", head.id))[0]!.n);
    await waitFor(async () => (await counted()) === 1, 5_000, "event_count to settle at 1");
  });
});
