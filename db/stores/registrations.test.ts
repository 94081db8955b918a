/** Contract of the webhook registrations store (reference counting), on the backend under test. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestStorage, type TestStorage } from "../testing";
import { automationRow, connectionRow, graphOf, iso, seedWorkspace, uid } from "./testing/fixtures";

let t: TestStorage;
let ws: string;
let con: string;
beforeEach(async () => {
  t = await createTestStorage();
  ws = await seedWorkspace(t.store);
  const c = connectionRow(ws);
  con = c.id;
  await t.store.connections.insert(c);
});
afterEach(async () => t.close());

const N = 8;
const user = (i: number) => ({ automationId: `aut_${i}`, nodeId: "t" });
const claim = (key: string, i: number) => t.store.registrations.claim(con, key, user(i), { id: uid("reg"), at: iso() });
const userCount = async () => Number((await t.sql<{ n: number }>("select count(*) as n from webhook_registration_users"))[0]!.n);

describe("registrations store", () => {
  it("claim creates a pending registration, later claims join it; save fills it; users come with their automation", async () => {
    const first = await claim("k", 1);
    expect(first.claimed).toBe(true);
    expect(first.row).toMatchObject({ connectionId: con, key: "k", upstreamId: "", data: null });
    const again = await claim("k", 1); // the same user again: no second count
    expect(again).toMatchObject({ claimed: false, row: { id: first.row.id } });
    expect(await t.store.registrations.save(first.row.id, { upstreamId: "up-1", expiresAt: "2030-01-01T00:00:00.000Z", data: { ids: [1] } }, iso())).toBe(true);
    const joined = await claim("k", 2);
    expect(joined).toMatchObject({ claimed: false, row: { id: first.row.id, upstreamId: "up-1", data: { ids: [1] } } });
    expect(await t.store.registrations.find(con, "k")).toMatchObject({ upstreamId: "up-1", expiresAt: "2030-01-01T00:00:00.000Z" });
    expect(await t.store.registrations.find(con, "other")).toBeUndefined();

    const a = automationRow(ws, { id: "aut_1", enabled: true, graph: graphOf([{ id: "t", name: "t", key: "x.on", config: { p: 1 } }]) });
    await t.store.automations.insert(a);
    const users = await t.store.registrations.users(con, "k");
    expect(users).toEqual([
      { automationId: "aut_1", nodeId: "t", graph: a.graph, enabled: true },
      { automationId: "aut_2", nodeId: "t", graph: null, enabled: null },
    ]);
    expect(await t.store.registrations.ofAutomations(["aut_1", "aut_9"])).toEqual([
      { automationId: "aut_1", nodeId: "t", upstreamId: "up-1", expiresAt: "2030-01-01T00:00:00.000Z" },
    ]);
    expect(await t.store.registrations.ofAutomations([])).toEqual([]);
    expect(await t.store.registrations.save("reg_gone", { upstreamId: "x", expiresAt: null, data: null }, iso())).toBe(false);
  });

  it("concurrent first claims create one registration and count every user", async () => {
    const results = await Promise.all(Array.from({ length: N }, (_, i) => claim("k", i)));
    expect(results.filter((r) => r.claimed)).toHaveLength(1);
    expect(new Set(results.map((r) => r.row.id)).size).toBe(1);
    expect(await userCount()).toBe(N);
  });

  it("leave counts down; only the last leaver deletes it (once, under concurrency); restore puts it back", async () => {
    await Promise.all(Array.from({ length: N }, (_, i) => claim("k", i)));
    const left = await Promise.all(Array.from({ length: N }, (_, i) => t.store.registrations.leave(con, "k", user(i))));
    expect(left.filter((l) => l?.last)).toHaveLength(1);
    expect(left.filter((l) => l && !l.last)).toHaveLength(N - 1);
    expect(await t.store.registrations.find(con, "k")).toBeUndefined();
    expect(await userCount()).toBe(0);
    expect(await t.store.registrations.leave(con, "k", user(0))).toBeUndefined();

    const row = left.find((l) => l?.last)!.row;
    await t.store.registrations.restore(row);
    expect(await t.store.registrations.find(con, "k")).toEqual(row);
    await t.store.registrations.restore(row); // already there: no error, no duplicate
    expect(await t.sql("select id from webhook_registrations")).toHaveLength(1);
  });

  it("a claim racing the last leave either joins before the delete or creates a new registration: never a user without one", async () => {
    for (let round = 0; round < 10; round++) {
      const key = `k${round}`;
      await claim(key, 1);
      const [, joined] = await Promise.all([t.store.registrations.leave(con, key, user(1)), claim(key, 2)]);
      const reg = await t.store.registrations.find(con, key);
      expect(reg?.id).toBe(joined.row.id);
      const users = await t.sql<{ automation_id: string }>("select automation_id from webhook_registration_users where registration_id = ?", reg!.id);
      expect(users.map((u) => u.automation_id)).toEqual(["aut_2"]);
    }
  });

  it("abandon drops a pending registration with its users, and leaves a filled one alone", async () => {
    const p = await claim("pending", 1);
    await t.store.registrations.abandon(p.row.id);
    expect(await t.store.registrations.find(con, "pending")).toBeUndefined();
    expect(await userCount()).toBe(0);
    const f = await claim("filled", 1);
    await t.store.registrations.save(f.row.id, { upstreamId: "up", expiresAt: null, data: null }, iso());
    await t.store.registrations.abandon(f.row.id);
    expect(await t.store.registrations.find(con, "filled")).toBeDefined();
  });
});
