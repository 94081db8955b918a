/** Contract of the shared rate-limit windows: every hit counts exactly once, across processes. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps, type TestDeps } from "@/server/testing";
import type { Store } from "../store";
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

const W = 60_000;
const T0 = 1_900_000_020_000 - (1_900_000_020_000 % W);

describe("rateLimits store", () => {
  it("counts hits in the current window and starts over in the next", async () => {
    const s = deps.store;
    expect(await s.rateLimits.hit("api-key:a", T0)).toEqual({ count: 1, windowStart: T0 });
    expect(await s.rateLimits.hit("api-key:a", T0)).toEqual({ count: 2, windowStart: T0 });
    expect(await s.rateLimits.hit("api-key:b", T0)).toEqual({ count: 1, windowStart: T0 });
    expect(await s.rateLimits.hit("api-key:a", T0 + W)).toEqual({ count: 1, windowStart: T0 + W });
    expect(await s.rateLimits.get("api-key:a")).toEqual({ count: 1, windowStart: T0 + W });
    expect(await s.rateLimits.get("api-key:none")).toBeUndefined();
  });

  it("a hit stamped with an older window (a lagging clock) counts towards the stored newer window", async () => {
    const s = deps.store;
    await s.rateLimits.hit("api-key:a", T0 + W);
    expect(await s.rateLimits.hit("api-key:a", T0)).toEqual({ count: 2, windowStart: T0 + W });
  });

  it("keeps one row per key whatever the number of windows", async () => {
    for (let i = 0; i < 5; i++) await deps.store.rateLimits.hit("api-key:a", T0 + i * W);
    expect(await deps.sql("select key from rate_limits")).toHaveLength(1);
  });

  it("concurrent hits from two processes each count once: the counts are 1..n", async () => {
    other = await anotherProcess(deps.url);
    const n = 24;
    const results = await race([deps.store, other], n, (s) => s.rateLimits.hit("api-key:burst", T0));
    expect(results.map((r) => r.count).sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(await deps.store.rateLimits.get("api-key:burst")).toEqual({ count: n, windowStart: T0 });
  });
});
