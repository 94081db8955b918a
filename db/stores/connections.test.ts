/** Contract of the connections store, on the backend under test (SQLite, or PostgreSQL with CONVEYOR_TEST_BACKEND=postgres). */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestStorage, type TestStorage } from "../testing";
import { connectionRow, iso, seedWorkspace, sleep, uid } from "./testing/fixtures";

let t: TestStorage;
let ws: string;
beforeEach(async () => {
  t = await createTestStorage();
  ws = await seedWorkspace(t.store);
});
afterEach(async () => t.close());

const N = 8;

describe("connections store", () => {
  it("inserts, reads (scoped to the workspace), lists oldest first, updates with an optional workspace guard, deletes", async () => {
    const other = await seedWorkspace(t.store);
    const a = connectionRow(ws, { name: "a", createdAt: iso(1000), config: { nested: { x: 1 } }, state: { cloudId: "c1" } });
    const b = connectionRow(ws, { name: "b", createdAt: iso(2000) });
    const c = connectionRow(other, { name: "c" });
    for (const r of [b, a, c]) await t.store.connections.insert(r);
    expect(await t.store.connections.get(ws, a.id)).toEqual(a);
    expect(await t.store.connections.get(other, a.id)).toBeUndefined();
    expect(await t.store.connections.getById(c.id)).toEqual(c);
    expect((await t.store.connections.list(ws)).map((r) => r.name)).toEqual(["a", "b"]);
    expect((await t.store.connections.getMany(ws, [a.id, c.id, "con_nope"])).map((r) => r.id)).toEqual([a.id]);
    expect(await t.store.connections.getMany(ws, [])).toEqual([]);

    await t.store.connections.update(a.id, { name: "a2", status: "error", statusMessage: "down" });
    expect(await t.store.connections.get(ws, a.id)).toMatchObject({ name: "a2", status: "error", statusMessage: "down" });
    await t.store.connections.update(a.id, { name: "guarded" }, other);
    expect((await t.store.connections.getById(a.id))!.name).toBe("a2");

    await t.store.connections.delete(a.id);
    expect(await t.store.connections.getById(a.id)).toBeUndefined();
  });

  it("merges state patches; concurrent merges all land", async () => {
    const a = connectionRow(ws, { state: { keep: true } });
    await t.store.connections.insert(a);
    await Promise.all(Array.from({ length: N }, (_, i) => t.store.connections.mergeState(a.id, { [`k${i}`]: i }, iso())));
    const state = (await t.store.connections.getById(a.id))!.state;
    expect(state).toEqual({ keep: true, ...Object.fromEntries(Array.from({ length: N }, (_, i) => [`k${i}`, i])) });
    await t.store.connections.mergeState("con_missing", { x: 1 }, iso()); // no row: nothing to do
  });

  it("stores an authorisation and bumps the token version", async () => {
    const a = connectionRow(ws, { tokenVersion: 3, status: "needs_authorization" });
    await t.store.connections.insert(a);
    await t.store.connections.setAuthorized(a.id, {
      tokensEnc: "enc",
      tokenExpiresAt: 123,
      state: { site: "s" },
      status: "ready",
      statusMessage: null,
      updatedAt: iso(),
    });
    expect(await t.store.connections.tokenState(a.id)).toEqual({ tokensEnc: "enc", tokenVersion: 4, tokenExpiresAt: 123, status: "ready" });
    expect(await t.store.connections.tokenState("con_missing")).toBeUndefined();
  });

  it("refresh lock: one of concurrent callers wins; a held lease is refused, an expired one is taken; only the owner releases", async () => {
    const a = connectionRow(ws);
    await t.store.connections.insert(a);
    const now = Date.now();
    const wins = await Promise.all(Array.from({ length: N }, (_, i) => t.store.connections.acquireRefreshLock(a.id, `owner${i}`, now, now + 10_000)));
    expect(wins.filter(Boolean)).toHaveLength(1);
    const owner = `owner${wins.indexOf(true)}`;
    expect((await t.store.connections.getById(a.id))!.refreshLockOwner).toBe(owner);
    expect(await t.store.connections.acquireRefreshLock(a.id, "late", now + 5000, now + 15_000)).toBe(false);
    await t.store.connections.releaseRefreshLock(a.id, "not-the-owner");
    expect((await t.store.connections.getById(a.id))!.refreshLockOwner).toBe(owner);
    // The lease ran out (the holder died): the next caller takes it.
    expect(await t.store.connections.acquireRefreshLock(a.id, "next", now + 10_001, now + 20_000)).toBe(true);
    await t.store.connections.releaseRefreshLock(a.id, "next");
    expect(await t.store.connections.getById(a.id)).toMatchObject({ refreshLockOwner: null, refreshLockUntil: null });
    expect(await t.store.connections.acquireRefreshLock("con_missing", "x", now, now + 1)).toBe(false);
  });

  it("refreshed tokens: compare-and-set on the version and the lock owner; one of concurrent writers wins", async () => {
    const a = connectionRow(ws, { tokenVersion: 7 });
    await t.store.connections.insert(a);
    const now = Date.now();
    expect(await t.store.connections.acquireRefreshLock(a.id, "me", now, now + 10_000)).toBe(true);
    const save = (owner: string, seen: number, enc: string) =>
      t.store.connections.saveRefreshedTokens(a.id, owner, seen, { tokensEnc: enc, tokenExpiresAt: 1, updatedAt: iso() });
    expect(await save("me", 6, "stale")).toBe(false);
    expect(await save("someone-else", 7, "no-lock")).toBe(false);
    const results = await Promise.all(Array.from({ length: N }, (_, i) => save("me", 7, `enc${i}`)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const st = (await t.store.connections.tokenState(a.id))!;
    expect(st.tokenVersion).toBe(8);
    expect(st.tokensEnc).toBe(`enc${results.indexOf(true)}`);
  });

  it("OAuth states: usable once, only by their user; concurrent takes get it once", async () => {
    const a = connectionRow(ws);
    await t.store.connections.insert(a);
    const row = {
      state: uid("st"),
      connectionId: a.id,
      userId: "usr_1",
      codeVerifier: "v",
      redirectUri: "http://cb",
      returnTo: null,
      createdAt: 1,
      expiresAt: 2,
    };
    await t.store.connections.insertOAuthState(row);
    expect(await t.store.connections.takeOAuthState(row.state, "usr_other")).toBeUndefined();
    const taken = await Promise.all(Array.from({ length: N }, () => t.store.connections.takeOAuthState(row.state, "usr_1")));
    expect(taken.filter(Boolean)).toEqual([row]);
    expect(await t.store.connections.takeOAuthState(row.state, "usr_1")).toBeUndefined();
  });

  it("a refresh lock held by one transaction's caller is not taken by another while its lease runs (interleaved with other writes)", async () => {
    // Lock holders and state writers interleave; the lease must stay with its owner throughout.
    const a = connectionRow(ws);
    await t.store.connections.insert(a);
    const now = Date.now();
    await t.store.connections.acquireRefreshLock(a.id, "holder", now, now + 60_000);
    await Promise.all([
      ...Array.from({ length: N }, (_, i) => t.store.connections.mergeState(a.id, { [`s${i}`]: i }, iso())),
      ...Array.from({ length: N }, (_, i) => sleep(i).then(() => t.store.connections.acquireRefreshLock(a.id, `x${i}`, Date.now(), Date.now() + 1000))),
    ]).then((r) => expect(r.slice(N).every((x) => x === false)).toBe(true));
    expect((await t.store.connections.getById(a.id))!.refreshLockOwner).toBe("holder");
  });
});
