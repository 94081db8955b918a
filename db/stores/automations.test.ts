/** Contract of the automations store, on the backend under test. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestStorage, type TestStorage } from "../testing";
import { automationRow, graphOf, intakeRow, iso, seedWorkspace, sleep, uid } from "./testing/fixtures";

let t: TestStorage;
let ws: string;
beforeEach(async () => {
  t = await createTestStorage();
  ws = await seedWorkspace(t.store);
});
afterEach(async () => t.close());

const insertRun = (automationId: string, at: number, eventId = uid("evt")) =>
  t.sql(
    "insert into runs (id, workspace_id, automation_id, version, status, trigger_node_id, event_id, created_at, updated_at) values (?, ?, ?, 1, 'succeeded', 't', ?, ?, ?)",
    uid("run"),
    ws,
    automationId,
    eventId,
    iso(at),
    iso(at),
  );

describe("automations store", () => {
  it("inserts, reads scoped to the workspace, updates; versions newest first", async () => {
    const other = await seedWorkspace(t.store);
    const a = automationRow(ws, {
      enabled: true,
      graph: graphOf([{ id: "t", name: "start", key: "core.webhook", config: { nested: { b: 2, a: 1 } }, position: { x: 1, y: 2 } }]),
    });
    await t.store.automations.insert(a);
    expect(await t.store.automations.get(ws, a.id)).toEqual(a);
    expect(await t.store.automations.get(other, a.id)).toBeUndefined();
    await t.store.automations.update(a.id, { name: "renamed", version: 2, enabled: false, errorHandlerId: "aut_x" });
    expect(await t.store.automations.get(ws, a.id)).toMatchObject({ name: "renamed", version: 2, enabled: false, errorHandlerId: "aut_x" });

    for (const v of [1, 2])
      await t.store.automations.insertVersion({
        id: uid("ver"),
        automationId: a.id,
        version: v,
        name: `v${v}`,
        description: "",
        graph: a.graph,
        createdBy: "me",
        createdAt: iso(),
      });
    expect((await t.store.automations.versions(a.id)).map((v) => v.version)).toEqual([2, 1]);
    expect(await t.store.automations.version(a.id, 1)).toMatchObject({ name: "v1", graph: a.graph });
    expect(await t.store.automations.version(a.id, 3)).toBeUndefined();
    await expect(
      t.store.automations.insertVersion({
        id: uid("ver"),
        automationId: a.id,
        version: 2,
        name: "dup",
        description: "",
        graph: a.graph,
        createdBy: null,
        createdAt: iso(),
      }),
    ).rejects.toThrow();
  });

  it("lists newest first with a keyset cursor, filters by enabled and by a case-insensitive literal name match", async () => {
    const rows = [
      automationRow(ws, { name: "Disk ALERTS", enabled: true, createdAt: iso(1000) }),
      automationRow(ws, { name: "50% off_sale", createdAt: iso(2000) }),
      automationRow(ws, { name: "500 offXsale", createdAt: iso(3000) }),
      automationRow(ws, { name: "back\\slash", enabled: true, createdAt: iso(4000) }),
    ];
    for (const r of rows) await t.store.automations.insert(r);
    await t.store.automations.insert(automationRow(await seedWorkspace(t.store), { name: "elsewhere" }));
    const names = async (o: Parameters<typeof t.store.automations.list>[1]) => (await t.store.automations.list(ws, o)).map((r) => r.name);
    expect(await names({ limit: 10 })).toEqual(["back\\slash", "500 offXsale", "50% off_sale", "Disk ALERTS"]);
    expect(await names({ limit: 2 })).toEqual(["back\\slash", "500 offXsale"]);
    expect(await names({ limit: 10, before: { createdAt: rows[2]!.createdAt, id: rows[2]!.id } })).toEqual(["50% off_sale", "Disk ALERTS"]);
    expect(await names({ limit: 10, enabled: true })).toEqual(["back\\slash", "Disk ALERTS"]);
    expect(await names({ limit: 10, enabled: false })).toEqual(["500 offXsale", "50% off_sale"]);
    expect(await names({ limit: 10, search: "alerts" })).toEqual(["Disk ALERTS"]);
    expect(await names({ limit: 10, search: "0% off_" })).toEqual(["50% off_sale"]);
    expect(await names({ limit: 10, search: "k\\s" })).toEqual(["back\\slash"]);
  });

  it("lock returns the row and serialises read-modify-write saves of one automation (no lost update)", async () => {
    const a = automationRow(ws);
    await t.store.automations.insert(a);
    expect(await t.store.automations.lock(await seedWorkspace(t.store), a.id)).toBeUndefined();
    await Promise.all(
      Array.from({ length: 8 }, () =>
        t.store.tx(async (s) => {
          const cur = (await s.automations.lock(ws, a.id))!;
          await sleep(5);
          await s.automations.update(a.id, { version: cur.version + 1 });
        }),
      ),
    );
    expect((await t.store.automations.get(ws, a.id))!.version).toBe(9);
  });

  it("finds enabled graphs, automations using a connection, lines naming an automation", async () => {
    const a = automationRow(ws, { enabled: true, graph: graphOf([{ id: "n", name: "n", key: "x.y", connectionId: "con_1", config: {} }]) });
    const b = automationRow(ws, { graph: graphOf([{ id: "n", name: "n", key: "x.y", connectionId: "con_12", config: {} }]) });
    await t.store.automations.insert(a);
    await t.store.automations.insert(b);
    expect(await t.store.automations.enabledGraphs()).toEqual([{ id: a.id, workspaceId: ws, graph: a.graph }]);
    expect(await t.store.automations.usingConnection(ws, "con_1")).toEqual([{ id: a.id, name: a.name }]);
    expect(await t.store.automations.usingConnection(ws, "con_2")).toEqual([]);
    const line = { id: uid("lin"), workspaceId: ws, name: "Triage", steps: [{ name: "s", appId: a.id }], createdAt: iso(), updatedAt: iso() };
    await t.store.lines.insert(line);
    expect(await t.store.automations.usedByLines(ws, a.id)).toEqual(["Triage"]);
    expect(await t.store.automations.usedByLines(ws, b.id)).toEqual([]);
  });

  it("delete removes the automation with its versions and intakes and clears error-handler references; the runs store removes its runs and jobs", async () => {
    const a = automationRow(ws);
    const b = automationRow(ws, { errorHandlerId: a.id });
    await t.store.automations.insert(a);
    await t.store.automations.insert(b);
    await t.store.automations.insertVersion({
      id: uid("ver"),
      automationId: a.id,
      version: 1,
      name: "v",
      description: "",
      graph: a.graph,
      createdBy: null,
      createdAt: iso(),
    });
    await t.store.intakes.insert(intakeRow(ws, { automationId: a.id, nodeId: "t" }));
    await insertRun(a.id, 1000);
    await insertRun(b.id, 1000);
    const runIds = (await t.sql<{ id: string; automation_id: string }>("select id, automation_id from runs")).map((r) => [r.id, r.automation_id] as const);
    for (const [id] of runIds)
      await t.sql("insert into jobs (id, kind, run_id, status, available_at, attempts, created_at) values (?, 'step', ?, 'queued', 0, 0, 0)", uid("job"), id);

    await t.store.runs.deleteOfAutomation(a.id);
    expect((await t.sql<{ automation_id: string }>("select automation_id from runs")).map((r) => r.automation_id)).toEqual([b.id]);
    expect(await t.sql("select id from jobs")).toHaveLength(1);
    await t.store.automations.delete(a.id);
    expect(await t.store.automations.get(ws, a.id)).toBeUndefined();
    expect(await t.store.automations.versions(a.id)).toEqual([]);
    expect(await t.store.intakes.triggersOf([a.id])).toEqual([]);
    expect((await t.store.automations.get(ws, b.id))!.errorHandlerId).toBeNull();
  });

  it("last run, recent events of a trigger node and recent runs, newest first", async () => {
    const a = automationRow(ws);
    await t.store.automations.insert(a);
    expect(await t.store.automations.lastRun(a.id)).toBeUndefined();
    for (const [i, node] of ["t", "t", "u"].entries()) {
      await t.sql(
        "insert into events (id, workspace_id, automation_id, node_id, type, envelope, source, received_at) values (?, ?, ?, ?, 'x', ?, 'webhook', ?)",
        `evt_${i}`,
        ws,
        a.id,
        node,
        JSON.stringify({ type: "x", timestamp: iso(), data: { i } }),
        iso(1000 + i),
      );
      await insertRun(a.id, 1000 + i, `evt_${i}`);
    }
    expect(await t.store.automations.lastRun(a.id)).toMatchObject({ status: "succeeded", createdAt: iso(1002) });
    const events = await t.store.automations.recentEvents(a.id, "t", 10);
    expect(events.map((e) => [e.id, e.source, (e.envelope.data as { i: number }).i])).toEqual([
      ["evt_1", "webhook", 1],
      ["evt_0", "webhook", 0],
    ]);
    expect((await t.store.automations.recentEvents(a.id, "t", 1)).map((e) => e.id)).toEqual(["evt_1"]);
    expect((await t.store.automations.recentRuns(a.id, 2)).map((r) => r.eventId)).toEqual(["evt_2", "evt_1"]);
  });
});
