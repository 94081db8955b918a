/** Contract of the intakes store, on the backend under test. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestStorage, type TestStorage } from "../testing";
import { connectionRow, intakeRow, iso, seedWorkspace, sleep } from "./testing/fixtures";

let t: TestStorage;
let ws: string;
beforeEach(async () => {
  t = await createTestStorage();
  ws = await seedWorkspace(t.store);
});
afterEach(async () => t.close());

describe("intakes store", () => {
  it("reads scoped to the workspace, lists oldest first with a keyset cursor, finds by automation / node / connection", async () => {
    const other = await seedWorkspace(t.store);
    const a = intakeRow(ws, { automationId: "aut_1", nodeId: "n1", createdAt: iso(1000), config: { schedule: true, nextFireAt: "x" } });
    const b = intakeRow(ws, { automationId: "aut_1", nodeId: "n2", createdAt: iso(2000) });
    const s = intakeRow(ws, { kind: "shared", connectionId: "con_1", config: { sharedKey: "jira" }, createdAt: iso(3000) });
    const w = intakeRow(ws, { kind: "webhook", lineId: "lin_1", secretEnc: "enc", config: { open: true }, createdAt: iso(4000) });
    const x = intakeRow(other, { automationId: "aut_2", nodeId: "n1" });
    for (const r of [w, s, b, a, x]) await t.store.intakes.insert(r);

    expect(await t.store.intakes.get(ws, a.id)).toEqual(a);
    expect(await t.store.intakes.get(other, a.id)).toBeUndefined();
    const p1 = await t.store.intakes.list(ws, { limit: 2 });
    expect(p1.map((r) => r.id)).toEqual([a.id, b.id]);
    const p2 = await t.store.intakes.list(ws, { limit: 10, after: { createdAt: b.createdAt, id: b.id } });
    expect(p2.map((r) => r.id)).toEqual([s.id, w.id]);

    expect((await t.store.intakes.triggersOf(["aut_1", "aut_2"])).map((r) => r.id)).toEqual([a.id, b.id, x.id]);
    expect(await t.store.intakes.triggersOf([])).toEqual([]);
    expect((await t.store.intakes.sharedOf(["con_1", "con_2"])).map((r) => r.id)).toEqual([s.id]);
    expect(await t.store.intakes.sharedOf([])).toEqual([]);
    expect((await t.store.intakes.ofNode("aut_1", "n2"))?.id).toBe(b.id);
    expect(await t.store.intakes.ofNode("aut_1", "n9")).toBeUndefined();
  });

  it("updates one intake, sets a node's status, deletes several", async () => {
    const a = intakeRow(ws, { automationId: "aut_1", nodeId: "n1", status: "disabled" });
    const b = intakeRow(ws, { automationId: "aut_1", nodeId: "n2" });
    await t.store.intakes.insert(a);
    await t.store.intakes.insert(b);
    await t.store.intakes.update(a.id, { status: "active", config: { k: 1 }, connectionId: "con_9" });
    expect(await t.store.intakes.get(ws, a.id)).toMatchObject({ status: "active", config: { k: 1 }, connectionId: "con_9" });
    await t.store.intakes.setNodeStatus("aut_1", "n2", { status: "error", statusMessage: "upstream said no", updatedAt: iso() });
    expect(await t.store.intakes.get(ws, b.id)).toMatchObject({ status: "error", statusMessage: "upstream said no" });
    expect((await t.store.intakes.get(ws, a.id))!.status).toBe("active");
    await t.store.intakes.delete([]);
    await t.store.intakes.delete([a.id, b.id]);
    expect(await t.store.intakes.list(ws, { limit: 10 })).toEqual([]);
  });

  it("ensureShared: one shared intake per connection and key, also when saves race", async () => {
    const c = connectionRow(ws);
    await t.store.connections.insert(c);
    const shared = (key: string) =>
      intakeRow(ws, { kind: "shared", connectionId: c.id, name: key, config: { sharedKey: key } }) as ReturnType<typeof intakeRow> & { connectionId: string };
    // Each inside a save transaction that goes on a moment before committing (as syncIntakes does).
    const got = await Promise.all(
      Array.from({ length: 8 }, () =>
        t.store.tx(async (s) => {
          const r = await s.intakes.ensureShared(shared("jira"));
          await sleep(20);
          return r;
        }),
      ),
    );
    expect(new Set(got.map((r) => r.id)).size).toBe(1);
    const other = await t.store.intakes.ensureShared(shared("ops"));
    expect(other.id).not.toBe(got[0]!.id);
    const rows = await t.store.intakes.sharedOf([c.id]);
    expect(rows.map((r) => (r.config as { sharedKey: string }).sharedKey).sort()).toEqual(["jira", "ops"]);
    expect((await t.store.intakes.ensureShared(shared("jira"))).token).toBe(got[0]!.token);
  });
});
