/** The REST rate limiter: fixed windows per key, in memory or shared by every process through the store. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { anotherProcess } from "@/db/stores/testing";
import type { Store } from "@/db/store";
import { createTestDeps, type TestDeps } from "../testing";
import { createRateLimiter, storeWindowCounter } from "./rate-limit";

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
const T0 = 1_900_000_000_000 - (1_900_000_000_000 % W);

describe("rate limiter", () => {
  it("allows `limit` requests per window per key with RateLimit-* headers, then refuses until the next window", async () => {
    let now = T0 + 15_000;
    const rl = createRateLimiter({ limit: 3, windowMs: W, now: () => now });
    const takes = [];
    for (let i = 0; i < 4; i++) takes.push(await rl.take("key_a"));
    expect(takes.map((t) => t.ok)).toEqual([true, true, true, false]);
    expect(takes.map((t) => t.headers["RateLimit-Remaining"])).toEqual(["2", "1", "0", "0"]);
    expect(takes[3]).toMatchObject({ retryAfterS: 45, headers: { "RateLimit-Limit": "3", "RateLimit-Reset": "45", "RateLimit-Policy": "3;w=60" } });
    expect((await rl.take("key_b")).ok).toBe(true);
    now = T0 + W;
    expect((await rl.take("key_a")).headers["RateLimit-Remaining"]).toBe("2");
  });

  it("shared through the store, the limit holds across processes (scale-out mode)", async () => {
    other = await anotherProcess(deps.url);
    let now = T0 + 1000;
    const a = createRateLimiter({ limit: 5, windowMs: W, now: () => now, counter: storeWindowCounter(deps.store) });
    const b = createRateLimiter({ limit: 5, windowMs: W, now: () => now, counter: storeWindowCounter(other) });
    const oks = [];
    for (let i = 0; i < 8; i++) oks.push((await (i % 2 ? b : a).take("key_a")).ok);
    // Per process each saw 4 requests, under the limit; together they made 8.
    expect(oks).toEqual([true, true, true, true, true, false, false, false]);
    const concurrent = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? b : a).take("key_c")));
    expect(concurrent.filter((t) => t.ok)).toHaveLength(5);
    now = T0 + W + 1;
    expect((await b.take("key_a")).ok).toBe(true);
  });
});
