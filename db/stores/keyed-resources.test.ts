/**
 * Contract of the store operations automations-as-code needs on automations, lines and webhook
 * intakes (keys, where a resource was applied from), on the backend under test.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestStorage, type TestStorage } from "../testing";
import type { ManagedSource } from "../types";
import { automationRow, intakeRow, iso, seedWorkspace, uid } from "./testing/fixtures";

let t: TestStorage;
let ws: string;
beforeEach(async () => {
  t = await createTestStorage();
  ws = await seedWorkspace(t.store);
});
afterEach(async () => t.close());

const source: ManagedSource = {
  repository: "git@example.test:ops/automations.git",
  path: "automations/disk.yaml",
  commit: "abc1234",
  appliedAt: iso(),
  appliedBy: "ci",
  appliedVersion: 2,
  appliedUpdatedAt: iso(5000),
  secretRefs: { "t:secret": "hook-bearer" },
};
const lineRow = (workspaceId: string, over: Partial<{ id: string; name: string; key: string | null; createdAt: string }> = {}) => ({
  id: uid("lin"),
  workspaceId,
  name: "L",
  key: null,
  source: null,
  steps: [],
  createdAt: iso(),
  updatedAt: iso(),
  ...over,
});

describe("automations: keys and source", () => {
  it("allOf lists the workspace's rows oldest first; keys gives id/key/name/createdAt; key and source default to null", async () => {
    const other = await seedWorkspace(t.store);
    const b = automationRow(ws, { name: "B", key: "b", createdAt: iso(2000) });
    const a = automationRow(ws, { name: "A", createdAt: iso(1000) });
    const { key: _k, source: _s, ...withoutKey } = automationRow(ws, { name: "C", createdAt: iso(3000) });
    for (const r of [b, a, withoutKey, automationRow(other)]) await t.store.automations.insert(r);
    expect((await t.store.automations.allOf(ws)).map((r) => r.name)).toEqual(["A", "B", "C"]);
    expect(await t.store.automations.get(ws, withoutKey.id)).toMatchObject({ key: null, source: null });
    const keys = await t.store.automations.keys(ws);
    expect(keys.sort((x, y) => x.name.localeCompare(y.name))).toEqual([
      { id: a.id, key: null, name: "A", createdAt: a.createdAt },
      { id: b.id, key: "b", name: "B", createdAt: b.createdAt },
      { id: withoutKey.id, key: null, name: "C", createdAt: withoutKey.createdAt },
    ]);
  });

  it("a key is unique per workspace (not across workspaces); rows without one do not clash", async () => {
    const other = await seedWorkspace(t.store);
    await t.store.automations.insert(automationRow(ws, { key: "disk" }));
    await t.store.automations.insert(automationRow(other, { key: "disk" }));
    await t.store.automations.insert(automationRow(ws));
    await t.store.automations.insert(automationRow(ws));
    await expect(t.store.automations.insert(automationRow(ws, { key: "disk" }))).rejects.toThrow();
  });

  it("setKeyIfUnset stores a key only on a row without one; setSource round-trips the JSON and leaves updatedAt", async () => {
    const a = automationRow(ws, { updatedAt: iso(5000) });
    await t.store.automations.insert(a);
    expect(await t.store.automations.setKeyIfUnset(a.id, "first")).toBe(true);
    expect(await t.store.automations.setKeyIfUnset(a.id, "second")).toBe(false);
    expect(await t.store.automations.setKeyIfUnset("aut_missing", "x")).toBe(false);
    await t.store.automations.setSource(a.id, source);
    expect(await t.store.automations.get(ws, a.id)).toMatchObject({ key: "first", source, updatedAt: a.updatedAt });
    await t.store.automations.setSource(a.id, null);
    expect((await t.store.automations.get(ws, a.id))?.source).toBeNull();
  });

  it("setKeyIfUnset: of concurrent callers exactly one wins", async () => {
    const a = automationRow(ws);
    await t.store.automations.insert(a);
    const results = await Promise.all(["k1", "k2", "k3", "k4"].map((k) => t.store.automations.setKeyIfUnset(a.id, k)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await t.store.automations.get(ws, a.id))?.key).toBe(["k1", "k2", "k3", "k4"][results.indexOf(true)]);
  });

  it("lastEditor is the author of the newest version (null without versions)", async () => {
    const a = automationRow(ws);
    await t.store.automations.insert(a);
    expect(await t.store.automations.lastEditor(a.id)).toBeNull();
    for (const [v, by] of [
      [2, "bob"],
      [1, "ann"],
    ] as const)
      await t.store.automations.insertVersion({
        id: uid("ver"),
        automationId: a.id,
        version: v,
        name: "A",
        description: "",
        graph: a.graph,
        createdBy: by,
        createdAt: iso(),
      });
    expect(await t.store.automations.lastEditor(a.id)).toBe("bob");
  });
});

describe("lines: keys and source", () => {
  it("allOf, keys, update of the key, setKeyIfUnset, setSource; keys unique per workspace", async () => {
    const other = await seedWorkspace(t.store);
    const l1 = lineRow(ws, { name: "Follow-up", createdAt: iso(1000) });
    const l2 = lineRow(ws, { name: "Triage", key: "triage", createdAt: iso(2000) });
    for (const r of [l2, l1, lineRow(other, { key: "triage" })]) await t.store.lines.insert(r);
    const mine = await t.store.lines.allOf(ws);
    expect(mine.map((r) => r.id).filter((id) => id === l1.id || id === l2.id)).toEqual([l1.id, l2.id]);
    expect((await t.store.lines.keys(ws)).find((k) => k.id === l2.id)).toEqual({ id: l2.id, key: "triage", name: "Triage", createdAt: l2.createdAt });
    await expect(t.store.lines.insert(lineRow(ws, { key: "triage" }))).rejects.toThrow();
    expect(await t.store.lines.setKeyIfUnset(l1.id, "follow-up")).toBe(true);
    expect(await t.store.lines.setKeyIfUnset(l1.id, "again")).toBe(false);
    await t.store.lines.update(l2.id, { key: "triage-2" });
    await t.store.lines.setSource(l2.id, source);
    expect(await t.store.lines.get(ws, l1.id)).toMatchObject({ key: "follow-up", source: null });
    expect(await t.store.lines.get(ws, l2.id)).toMatchObject({ key: "triage-2", source, updatedAt: l2.updatedAt });
  });
});

describe("intakes: webhook intakes with keys and source", () => {
  it("webhooksOf and webhookKeys see only the workspace's webhook intakes; setKeyIfUnset, setSource; keys unique per workspace", async () => {
    const other = await seedWorkspace(t.store);
    const w1 = intakeRow(ws, { kind: "webhook", name: "Inbox", lineId: "lin_1", createdAt: iso(1000) });
    const w2 = intakeRow(ws, { kind: "webhook", name: "Pager", key: "pager", lineId: "lin_1", createdAt: iso(2000) });
    const trigger = intakeRow(ws, { automationId: "aut_1", nodeId: "t" });
    const { key: _k, source: _s, ...shared } = intakeRow(ws, { kind: "shared", connectionId: "con_1", config: { sharedKey: "jira" } });
    for (const r of [w2, trigger, shared, w1, intakeRow(other, { kind: "webhook", key: "pager" })]) await t.store.intakes.insert(r);
    expect((await t.store.intakes.webhooksOf(ws)).map((r) => r.id)).toEqual([w1.id, w2.id]);
    expect((await t.store.intakes.webhookKeys(ws)).sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { id: w1.id, key: null, name: "Inbox", createdAt: w1.createdAt },
      { id: w2.id, key: "pager", name: "Pager", createdAt: w2.createdAt },
    ]);
    await expect(t.store.intakes.insert(intakeRow(ws, { kind: "webhook", key: "pager" }))).rejects.toThrow();
    expect(await t.store.intakes.setKeyIfUnset(w1.id, "inbox")).toBe(true);
    expect(await t.store.intakes.setKeyIfUnset(w1.id, "other")).toBe(false);
    await t.store.intakes.setSource(w1.id, { ...source, secretRefs: { secret: "intake-inbox" } });
    expect(await t.store.intakes.get(ws, w1.id)).toMatchObject({ key: "inbox", source: { secretRefs: { secret: "intake-inbox" } }, updatedAt: w1.updatedAt });
    expect(await t.store.intakes.get(ws, shared.id)).toMatchObject({ key: null, source: null });
  });
});
