/**
 * Contract of the run history reads and pruning (both engines): keyset pages visit every run once
 * in order (ties on the creation time included), and one prune pass applies the age and count
 * limits without touching active runs, taking events with their last run.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps, type TestDeps } from "@/server/testing";
import type { NewRun } from "./runs";
import { automationRow, seedWorkspace, uid } from "./testing/fixtures";

let deps: TestDeps;
let ws: string;
beforeEach(async () => {
  deps = await createTestDeps();
  ws = await seedWorkspace(deps.store);
});
afterEach(async () => deps.close());

const T0 = Date.UTC(2030, 0, 10);
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const env = { type: "t", timestamp: "2030-01-01T00:00:00.000Z", data: { n: 1 } };

async function automation(workspaceId = ws): Promise<string> {
  const row = automationRow(workspaceId);
  await deps.store.automations.insert(row);
  return row.id;
}

/** A run created at `minutes` after T0: finished (`succeeded`) unless `active` (queued, with a step job). */
async function run(automationId: string, minutes: number, o: Partial<NewRun> & { active?: boolean; workspaceId?: string } = {}) {
  const created = await deps.store.runs.create({
    workspaceId: o.workspaceId ?? ws,
    automationId,
    version: 1,
    triggerNodeId: "t",
    envelope: env,
    source: "manual",
    firstNodes: o.active ? ["n"] : [],
    at: at(minutes),
    ...o,
  });
  return created!;
}

const ids = async (table: string) => (await deps.sql<{ id: string }>(`select id from ${table} order by id`)).map((r) => r.id);

describe("runs store: lists", () => {
  it("pages newest first by (created_at, id) with a keyset cursor, ties included, per filter", async () => {
    const a = await automation();
    const b = await automation();
    const made: Array<{ id: string; minute: number; automationId: string; failed: boolean }> = [];
    // Three runs share each creation time: the cursor must split ties by id. Every third one fails.
    for (let m = 0; m < 7; m++) {
      for (const aut of [a, b, a]) {
        const failed = made.length % 3 === 1;
        const id = (await run(aut, m, { active: failed })).runId;
        if (failed) await deps.store.runs.finish(id, "failed", { message: "x" }, at(m + 1), () => ({ name: "n", key: "k" }));
        made.push({ id, minute: m, automationId: aut, failed });
      }
    }
    const expected = (f: (r: (typeof made)[number]) => boolean) =>
      made
        .filter(f)
        .sort((x, y) => y.minute - x.minute || (x.id < y.id ? 1 : -1))
        .map((r) => r.id);

    const walk = async (filter: { automationId?: string; status?: "failed" | "succeeded" }, limit: number) => {
      const seen: string[] = [];
      let before: { createdAt: string; id: string } | null = null;
      for (let guard = 0; guard < 50; guard++) {
        const page = await deps.store.runs.list(ws, filter, { limit, before });
        seen.push(...page.map((r) => r.id));
        if (page.length < limit) return seen;
        const last = page[page.length - 1]!;
        before = { createdAt: last.createdAt, id: last.id };
      }
      throw new Error("no end");
    };
    expect(await walk({}, 4)).toEqual(expected(() => true));
    expect(await walk({ automationId: a }, 3)).toEqual(expected((r) => r.automationId === a));
    expect(await walk({ automationId: b }, 2)).toEqual(expected((r) => r.automationId === b));
    expect(await walk({ status: "failed" }, 2)).toEqual(expected((r) => r.failed));
    expect(await walk({ automationId: a, status: "succeeded" }, 3)).toEqual(expected((r) => r.automationId === a && !r.failed));
    // Only production runs, or only test runs.
    await deps.sql("update runs set mode = 'test' where id = ?", made[4]!.id);
    const prodIds = (r: { id: string }) => r.id !== made[4]!.id;
    expect((await deps.store.runs.list(ws, { automationId: b, mode: "test" }, { limit: 50 })).map((r) => r.id)).toEqual([made[4]!.id]);
    expect((await deps.store.runs.list(ws, { mode: "production" }, { limit: 50 })).map((r) => r.id)).toEqual(expected(prodIds));
    // Another workspace's id never lists this one's runs, with or without an automation.
    expect(await deps.store.runs.list("ws_other", { automationId: a }, { limit: 10 })).toEqual([]);
    expect(await deps.store.runs.list("ws_other", {}, { limit: 10 })).toEqual([]);
  });
});

describe("runs store: recent failures", () => {
  it("counts a workspace's failed runs created since a time, up to a cap", async () => {
    const a = await automation();
    const other = await seedWorkspace(deps.store);
    const b = await automation(other);
    const fail = async (aut: string, minute: number, workspaceId = ws) => {
      const id = (await run(aut, minute, { active: true, workspaceId })).runId;
      await deps.store.runs.finish(id, "failed", { message: "x" }, at(minute + 1), () => ({ name: "n", key: "k" }));
    };
    await fail(a, 0); // before the window
    await fail(a, 10); // at its start: counted
    await fail(a, 11);
    await fail(a, 12);
    await run(a, 13); // succeeded
    await run(a, 14, { active: true }); // still running
    const cancelled = (await run(a, 15, { active: true })).runId;
    await deps.store.runs.finish(cancelled, "cancelled", null, at(16), () => ({ name: "n", key: "k" }));
    await fail(b, 12, other); // another workspace
    await fail(a, 17);
    const [testRun] = await deps.sql<{ id: string }>("select id from runs where created_at = ?", at(17).toISOString());
    await deps.sql("update runs set mode = 'test' where id = ?", testRun!.id); // a failed test run: not counted
    const since = at(10).toISOString();
    expect(await deps.store.runs.countFailedSince(ws, since, 100)).toBe(3);
    expect(await deps.store.runs.countFailedSince(ws, since, 2)).toBe(2);
    expect(await deps.store.runs.countFailedSince(ws, at(20).toISOString(), 100)).toBe(0);
    expect(await deps.store.runs.countFailedSince(other, since, 100)).toBe(1);
    expect(await deps.store.runs.countFailedSince("ws_none", since, 100)).toBe(0);
  });
});

describe("runs store: prune", () => {
  const cutoff = at(100).toISOString();

  it("removes finished runs older than the cutoff with their steps and events, never active ones", async () => {
    const a = await automation();
    const old = await run(a, 10);
    const oldActive = await run(a, 20, { active: true });
    const fresh = await run(a, 200);
    await deps.sql(
      "insert into run_steps (id, run_id, node_id, name, key, status, attempts, logs, created_at) values (?, ?, 'n', 'n', 'k', 'succeeded', '[]', '[]', ?)",
      uid("stp"),
      old.runId,
      at(10).toISOString(),
    );

    expect(await deps.store.runs.prune(cutoff, 1000, 5000)).toBe(1);
    expect(await ids("runs")).toEqual([oldActive.runId, fresh.runId].sort());
    expect(await ids("run_steps")).toEqual([]);
    expect(await ids("events")).toEqual([oldActive.eventId, fresh.eventId].sort());
    expect(await deps.store.runs.prune(cutoff, 1000, 5000)).toBe(0);
  });

  it("keeps the newest `keep` runs of each automation (active ones are never removed)", async () => {
    const a = await automation();
    const b = await automation();
    const runsOfA = [];
    for (let m = 0; m < 6; m++) runsOfA.push(await run(a, 200 + m, { active: m === 0 }));
    const runsOfB = [await run(b, 200), await run(b, 201)];

    expect(await deps.store.runs.prune(cutoff, 3, 5000)).toBe(2); // a's minutes 1 and 2; minute 0 is active
    expect(await ids("runs")).toEqual([runsOfA[0]!, ...runsOfA.slice(3), ...runsOfB].map((r) => r.runId).sort());
    expect(await ids("events")).toEqual([runsOfA[0]!, ...runsOfA.slice(3), ...runsOfB].map((r) => r.eventId).sort());
  });

  it("keeps an event another run still refers to, and a deduplicated event until the cutoff", async () => {
    const a = await automation();
    const first = await run(a, 200);
    const replay = await run(a, 201, { eventId: first.eventId, source: "replay" });
    const keyed = await run(a, 202, { dedupeScope: "s", dedupeKey: "k1" });
    await run(a, 203);
    await run(a, 204);

    // keep 2: first, replay and keyed go; their shared event with them, the keyed event stays (dedupe key, newer than the cutoff).
    expect(await deps.store.runs.prune(cutoff, 2, 5000)).toBe(3);
    const events = await ids("events");
    expect(events).not.toContain(first.eventId);
    expect(events).toContain(keyed.eventId);
    expect(replay.eventId).toBe(first.eventId);
    // The key still deduplicates: the same delivery starts nothing.
    expect(await run(a, 205, { dedupeScope: "s", dedupeKey: "k1" }).catch(() => null)).toBeNull();

    // A run referring to an event keeps it when another run of that event is pruned.
    const b = await automation();
    const shared = await run(b, 10);
    const later = await run(b, 300, { eventId: shared.eventId, source: "replay" });
    await deps.store.runs.prune(cutoff, 1000, 5000);
    expect(await ids("events")).toContain(shared.eventId);
    expect(await deps.store.runs.get(later.runId)).toBeDefined();

    // Past the cutoff the keyed event goes once no run refers to it.
    expect(await deps.store.runs.prune(at(10_000).toISOString(), 1000, 5000)).toBeGreaterThan(0);
    expect(await ids("events")).toEqual([]);
  });

  it("removes deliveries that started no run once older than the cutoff", async () => {
    const intakeId = uid("int");
    const d = (id: string, minutes: number, key: string) =>
      deps.store.runs.recordDelivery({ id, workspaceId: ws, intakeId, dedupeScope: intakeId, dedupeKey: key, receivedAt: at(minutes).toISOString() });
    const oldId = uid("evt");
    const newId = uid("evt");
    expect(await d(oldId, 10, "a")).toBe(true);
    expect(await d(newId, 200, "b")).toBe(true);
    expect(await deps.store.runs.prune(cutoff, 1000, 5000)).toBe(0);
    expect(await ids("events")).toEqual([newId]);
  });

  it("works through a long history in bounded passes", async () => {
    const a = await automation();
    const other = await seedWorkspace(deps.store);
    const b = await automation(other);
    for (let m = 0; m < 30; m++) {
      await run(a, m);
      await run(b, m, { workspaceId: other });
    }
    // batch 8: at most 8 per workspace for the age rule in one pass.
    expect(await deps.store.runs.prune(at(20).toISOString(), 1000, 8)).toBe(16);
    expect(await deps.store.runs.prune(at(20).toISOString(), 1000, 8)).toBe(16);
    expect(await deps.store.runs.prune(at(20).toISOString(), 1000, 8)).toBe(8);
    expect(await deps.store.runs.prune(at(20).toISOString(), 1000, 8)).toBe(0);
    expect(Number((await deps.sql<{ n: number }>("select count(*) as n from runs"))[0]!.n)).toBe(20);
    expect(Number((await deps.sql<{ n: number }>("select count(*) as n from events"))[0]!.n)).toBe(20);
  });
});
