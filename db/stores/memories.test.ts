/** Contract of what automations remember (core.remember / core.recall), on both backends. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps, type TestDeps } from "@/server/testing";
import { seedWorkspace } from "@/server/runner/testing/seed";
import type { Store } from "../store";
import { anotherProcess, race } from "./testing";

let deps: TestDeps;
let other: Store | undefined;
let ws: string;

beforeEach(async () => {
  deps = await createTestDeps();
  ws = (await seedWorkspace(deps)).workspaceId;
});
afterEach(async () => {
  await other?.close();
  other = undefined;
  await deps.close();
});

const T0 = "2026-11-25T10:00:00.000Z";
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();
const by = { runId: "run_a", nodeId: "n1", automationId: "aut_a" };
const entry = (key: string, value: unknown, storedAt = T0, expiresAt = at(60), scope = "aut_a", maxEntries = 100) => ({
  workspaceId: ws,
  scope,
  key,
  value,
  storedBy: by,
  storedAt,
  expiresAt,
  maxEntries,
});

describe("memories store", () => {
  it("keeps one value per key and scope, replaces it, and keeps JSON as it was given", async () => {
    const m = deps.store.memories;
    const value = { issue: "OPS-1", labels: ["a", "b"], n: 3, nested: { z: 1, a: null } };
    expect(await m.set(entry("k", value))).toEqual({ stored: true, replaced: false });
    expect(await m.get(ws, "aut_a", "k", at(1))).toEqual({ value, storedBy: by, storedAt: T0, expiresAt: at(60) });
    expect(await m.get(ws, "workspace", "k", at(1))).toBeUndefined(); // another scope
    expect(await m.set(entry("k", "OPS-2", at(2), at(90)))).toEqual({ stored: true, replaced: true });
    expect((await m.get(ws, "aut_a", "k", at(3)))?.value).toBe("OPS-2");
    expect(await m.countLive(ws, at(3))).toBe(1);
  });

  it("an expired value is invisible at once, counts as not replaced, and is pruned", async () => {
    const m = deps.store.memories;
    await m.set(entry("old", 1, T0, at(10)));
    await m.set(entry("new", 2, T0, at(100)));
    expect(await m.get(ws, "aut_a", "old", at(10))).toBeUndefined();
    expect(await m.set(entry("old", 3, at(11), at(20)))).toEqual({ stored: true, replaced: false });
    expect(await m.prune(at(30))).toBe(1);
    expect(await m.get(ws, "aut_a", "new", at(30))).toMatchObject({ value: 2 });
    expect(await m.prune(at(30))).toBe(0);
    expect(await deps.sql("select key from memories")).toEqual([{ key: "new" }]);
  });

  it("delete says whether a live value was forgotten", async () => {
    const m = deps.store.memories;
    await m.set(entry("k", 1));
    expect(await m.delete(ws, "aut_a", "k", at(1))).toBe(true);
    expect(await m.delete(ws, "aut_a", "k", at(1))).toBe(false);
    expect(await m.get(ws, "aut_a", "k", at(1))).toBeUndefined();
  });

  it("refuses a new key once the workspace holds its limit of live values; replacing one still works", async () => {
    const m = deps.store.memories;
    for (const k of ["a", "b", "c"]) expect((await m.set(entry(k, k, T0, at(60), "aut_a", 3))).stored).toBe(true);
    expect(await m.set(entry("d", "d", T0, at(60), "workspace", 3))).toEqual({ stored: false, replaced: false });
    expect(await m.set(entry("a", "a2", T0, at(60), "aut_a", 3))).toEqual({ stored: true, replaced: true });
    // Expired values do not count.
    await m.set(entry("c", "c", T0, at(5), "aut_a", 3));
    expect((await m.set(entry("d", "d", at(6), at(60), "aut_a", 3))).stored).toBe(true);
  });

  it("a workspace's memories go with it", async () => {
    await deps.store.memories.set(entry("k", 1));
    await deps.sql("delete from workspaces where id = ?", ws);
    expect(await deps.sql("select key from memories")).toEqual([]);
  });

  it("writers in two processes racing on one key leave one value, stored by one of them", async () => {
    other = await anotherProcess(deps.url);
    const results = await race([deps.store, other], 10, (s, i) => s.memories.set(entry("k", i, at(i), at(60 + i))));
    expect(results.every((r) => r.stored)).toBe(true);
    const rows = await deps.sql<{ value: unknown }>("select value from memories where key = 'k'");
    expect(rows).toHaveLength(1);
  });
});
