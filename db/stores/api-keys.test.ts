/** Contract of the API-keys store (runs on the backend under test: SQLite, or PostgreSQL with CONVEYOR_TEST_BACKEND=postgres). */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps, type TestDeps } from "@/server/testing";
import { seedWorkspace } from "@/server/runner/testing/seed";
import type { ApiKeyRow } from "../types";
import type { Store } from "../store";
import { anotherProcess, race } from "./testing";

let deps: TestDeps;
let orgId: string;
let other: Store | undefined;

beforeEach(async () => {
  deps = await createTestDeps();
  orgId = (await seedWorkspace(deps)).organizationId;
});
afterEach(async () => {
  await other?.close();
  other = undefined;
  await deps.close();
});

let n = 0;
function key(over: Partial<ApiKeyRow> = {}): ApiKeyRow {
  n++;
  return {
    id: `key_${n}`,
    organizationId: orgId,
    name: `k${n}`,
    prefix: `cvk_${String(n).padStart(8, "0")}`,
    hash: `hash_${n}`,
    role: "viewer",
    workspaceIds: null,
    createdBy: "tester",
    createdAt: new Date(Date.UTC(2030, 0, 1, 0, n)).toISOString(),
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: null,
    ...over,
  };
}

describe("apiKeys store", () => {
  it("inserts, finds by hash, gets within its organization only, lists newest first", async () => {
    const a = key({ workspaceIds: ["ws_a", "ws_b"], role: "admin" });
    const b = key({ expiresAt: "2031-01-01T00:00:00.000Z" });
    await deps.store.apiKeys.insert(a);
    await deps.store.apiKeys.insert(b);
    expect(await deps.store.apiKeys.findByHash(a.hash)).toEqual(a);
    expect(await deps.store.apiKeys.findByHash("nope")).toBeUndefined();
    expect(await deps.store.apiKeys.get(orgId, b.id)).toEqual(b);
    expect(await deps.store.apiKeys.get("org_other", b.id)).toBeUndefined();
    expect((await deps.store.apiKeys.list(orgId)).map((k) => k.id)).toEqual([b.id, a.id]);
    expect(await deps.store.apiKeys.list("org_other")).toEqual([]);
  });

  it("refuses a second key with the same hash", async () => {
    await deps.store.apiKeys.insert(key({ hash: "same" }));
    await expect(deps.store.apiKeys.insert(key({ hash: "same" }))).rejects.toThrow();
  });

  it("revokes once: of many concurrent revokes across processes exactly one wins", async () => {
    const k = key();
    await deps.store.apiKeys.insert(k);
    other = await anotherProcess(deps.url);
    const results = await race([deps.store, other], 8, (s, i) => s.apiKeys.revoke(k.id, `2030-02-01T00:00:0${i}.000Z`));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    expect((await deps.store.apiKeys.get(orgId, k.id))!.revokedAt).toBe(`2030-02-01T00:00:0${winner}.000Z`);
    expect(await deps.store.apiKeys.revoke(k.id, "2030-03-01T00:00:00.000Z")).toBe(false);
  });

  it("touches last-used only when unset or older than the given bound, once across racing processes", async () => {
    const k = key();
    await deps.store.apiKeys.insert(k);
    other = await anotherProcess(deps.url);
    const at = "2030-02-01T00:10:00.000Z";
    const results = await race([deps.store, other], 6, (s) => s.apiKeys.touchLastUsed(k.id, at, "2030-02-01T00:09:00.000Z"));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await deps.store.apiKeys.get(orgId, k.id))!.lastUsedAt).toBe(at);
    // Used 30 s later: the stored time is within the minute, nothing is written.
    expect(await deps.store.apiKeys.touchLastUsed(k.id, "2030-02-01T00:10:30.000Z", "2030-02-01T00:09:30.000Z")).toBe(false);
    // Two minutes later it is stale.
    expect(await deps.store.apiKeys.touchLastUsed(k.id, "2030-02-01T00:12:00.000Z", "2030-02-01T00:11:00.000Z")).toBe(true);
    expect((await deps.store.apiKeys.get(orgId, k.id))!.lastUsedAt).toBe("2030-02-01T00:12:00.000Z");
  });

  it("goes when its organization is deleted", async () => {
    const k = key();
    await deps.store.apiKeys.insert(k);
    await deps.sql("delete from organizations where id = ?", orgId);
    expect(await deps.store.apiKeys.findByHash(k.hash)).toBeUndefined();
  });
});
