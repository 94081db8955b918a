/** Contract of the usage counters: additions add up (also from several processes); the report reads a bucket range. */
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

const H = (h: number) => new Date(Date.UTC(2030, 0, 1, h)).toISOString();

describe("usage store", () => {
  it("adds to counters, summing rows that name the same counter", async () => {
    const s = deps.store;
    await s.usage.add([
      { workspaceId: "ws_a", bucket: H(1), metric: "api.calls", value: 2 },
      { workspaceId: "ws_a", bucket: H(1), metric: "api.calls", value: 3 },
      { workspaceId: "ws_a", bucket: H(1), metric: "runs.succeeded", value: 1 },
    ]);
    await s.usage.add([{ workspaceId: "ws_a", bucket: H(1), metric: "api.calls", value: 10 }]);
    await s.usage.add([]);
    expect(await s.usage.list("ws_a", H(0), H(2))).toEqual([
      { workspaceId: "ws_a", bucket: H(1), metric: "api.calls", value: 15 },
      { workspaceId: "ws_a", bucket: H(1), metric: "runs.succeeded", value: 1 },
    ]);
  });

  it("lists one workspace's buckets from `fromBucket` (inclusive) to `before` (exclusive)", async () => {
    const rows = [0, 1, 2, 3].map((h) => ({ workspaceId: "ws_a", bucket: H(h), metric: "tasks.created", value: h + 1 }));
    await deps.store.usage.add([...rows, { workspaceId: "ws_b", bucket: H(1), metric: "tasks.created", value: 99 }]);
    expect((await deps.store.usage.list("ws_a", H(1), H(3))).map((r) => [r.bucket, r.value])).toEqual([
      [H(1), 2],
      [H(2), 3],
    ]);
  });

  it("writes large batches (more rows than one statement takes)", async () => {
    const rows = Array.from({ length: 1234 }, (_, i) => ({ workspaceId: `ws_${i}`, bucket: H(0), metric: "api.calls", value: 1 }));
    await deps.store.usage.add(rows);
    expect(await deps.sql("select count(*) as n, cast(sum(value) as bigint) as total from usage_counters")).toEqual([{ n: 1234, total: 1234 }]);
  });

  it("concurrent additions from two processes add up exactly", async () => {
    other = await anotherProcess(deps.url);
    await race([deps.store, other], 20, (s, i) => s.usage.add([{ workspaceId: "ws_a", bucket: H(5), metric: "api.calls", value: i + 1 }]));
    expect((await deps.store.usage.list("ws_a", H(5), H(6)))[0]!.value).toBe((20 * 21) / 2);
  });
});
