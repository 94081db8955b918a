/** Contract of the Idempotency-Key store: claims are atomic across processes; stored responses expire. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps, type TestDeps } from "@/server/testing";
import type { Store } from "../store";
import type { IdempotencyRequest } from "../types";
import { anotherProcess, race } from "./testing";

let deps: TestDeps;
let other: Store | undefined;

beforeEach(async () => {
  deps = await createTestDeps();
});
afterEach(async () => {
  await other?.close();
  other = undefined;
  await deps.close();
});

const T0 = 1_900_000_000_000;
const req = (over: Partial<IdempotencyRequest> = {}): IdempotencyRequest => ({
  apiKeyId: "key_1",
  key: "k-1",
  method: "POST",
  path: "/api/v1/factories",
  bodyHash: "h1",
  now: T0,
  ...over,
});
const limits = (now: number) => ({ expiredBefore: now - 24 * 3600_000, staleBefore: now - 300_000 });

describe("idempotency store", () => {
  it("claims, reports the running claim, stores the response, then returns it", async () => {
    const s = deps.store;
    expect(await s.idempotency.claim(req(), limits(T0))).toEqual({ kind: "claimed", createdAt: T0 });
    const again = await s.idempotency.claim(req({ now: T0 + 10, bodyHash: "h2" }), limits(T0 + 10));
    expect(again).toMatchObject({ kind: "pending", row: { bodyHash: "h1", createdAt: T0 } });
    expect(await s.idempotency.complete("key_1", "k-1", T0, { status: 201, response: '{"id":"ws_1","name":"Ünï 工場"}' })).toBe(true);
    const stored = await s.idempotency.claim(req({ now: T0 + 20 }), limits(T0 + 20));
    expect(stored).toEqual({
      kind: "stored",
      row: {
        apiKeyId: "key_1",
        key: "k-1",
        method: "POST",
        path: "/api/v1/factories",
        bodyHash: "h1",
        status: 201,
        response: '{"id":"ws_1","name":"Ünï 工場"}',
        createdAt: T0,
      },
    });
    // Completing twice, or a claim that is not ours, changes nothing.
    expect(await s.idempotency.complete("key_1", "k-1", T0, { status: 500, response: "x" })).toBe(false);
  });

  it("keys are per API key", async () => {
    expect((await deps.store.idempotency.claim(req(), limits(T0))).kind).toBe("claimed");
    expect((await deps.store.idempotency.claim(req({ apiKeyId: "key_2" }), limits(T0))).kind).toBe("claimed");
  });

  it("a released claim can be claimed again; a release of someone else's claim does nothing", async () => {
    const s = deps.store;
    await s.idempotency.claim(req(), limits(T0));
    await s.idempotency.release("key_1", "k-1", T0 + 1);
    expect((await s.idempotency.claim(req({ now: T0 + 2 }), limits(T0 + 2))).kind).toBe("pending");
    await s.idempotency.release("key_1", "k-1", T0);
    expect(await s.idempotency.claim(req({ now: T0 + 3 }), limits(T0 + 3))).toEqual({ kind: "claimed", createdAt: T0 + 3 });
  });

  it("a stored response expires after the TTL and a dead claim after the stale limit", async () => {
    const s = deps.store;
    await s.idempotency.claim(req(), limits(T0));
    await s.idempotency.complete("key_1", "k-1", T0, { status: 201, response: "{}" });
    const day = 24 * 3600_000;
    expect((await s.idempotency.claim(req({ now: T0 + day - 1 }), limits(T0 + day - 1))).kind).toBe("stored");
    expect(await s.idempotency.claim(req({ now: T0 + day + 1 }), limits(T0 + day + 1))).toEqual({ kind: "claimed", createdAt: T0 + day + 1 });
    // That claim's process dies: within 5 minutes it still blocks, after that it is taken over.
    const t1 = T0 + day + 1;
    expect((await s.idempotency.claim(req({ now: t1 + 299_000 }), limits(t1 + 299_000))).kind).toBe("pending");
    expect(await s.idempotency.claim(req({ now: t1 + 301_000 }), limits(t1 + 301_000))).toEqual({ kind: "claimed", createdAt: t1 + 301_000 });
    // The dead process's late completion does not overwrite the new claim.
    expect(await s.idempotency.complete("key_1", "k-1", t1, { status: 201, response: "late" })).toBe(false);
  });

  it("purges rows created before the bound, keeps newer ones", async () => {
    const s = deps.store;
    await s.idempotency.claim(req({ key: "old" }), limits(T0));
    await s.idempotency.complete("key_1", "old", T0, { status: 201, response: "{}" });
    await s.idempotency.claim(req({ key: "new", now: T0 + 1000 }), limits(T0 + 1000));
    expect(await s.idempotency.purgeExpired(T0 + 1)).toBe(1);
    expect((await deps.sql<{ key: string }>("select key from idempotency_keys")).map((r) => r.key)).toEqual(["new"]);
  });

  it("of many concurrent claims of one key across processes exactly one wins", async () => {
    other = await anotherProcess(deps.url);
    const results = await race([deps.store, other], 10, (s, i) => s.idempotency.claim(req({ now: T0 + i }), limits(T0 + i)));
    expect(results.filter((r) => r.kind === "claimed")).toHaveLength(1);
    expect(results.filter((r) => r.kind === "pending")).toHaveLength(9);
    expect(await deps.sql("select key from idempotency_keys")).toHaveLength(1);
  });
});
