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

  it("sums a window per day (midnight UTC buckets) or per hour, in the database", async () => {
    const D = (day: number, h: number) => new Date(Date.UTC(2030, 0, day, h)).toISOString();
    await deps.store.usage.add([
      { workspaceId: "ws_a", bucket: D(1, 5), metric: "runs.succeeded", value: 2 },
      { workspaceId: "ws_a", bucket: D(1, 23), metric: "runs.succeeded", value: 3 },
      { workspaceId: "ws_a", bucket: D(1, 23), metric: "api.calls", value: 7 },
      { workspaceId: "ws_a", bucket: D(2, 0), metric: "runs.succeeded", value: 4 },
      { workspaceId: "ws_a", bucket: D(3, 0), metric: "runs.succeeded", value: 100 }, // at `before`: outside
      { workspaceId: "ws_b", bucket: D(1, 5), metric: "runs.succeeded", value: 50 },
    ]);
    expect(await deps.store.usage.summary("ws_a", D(1, 0), D(3, 0), "day")).toEqual([
      { workspaceId: "ws_a", bucket: D(1, 0), metric: "api.calls", value: 7 },
      { workspaceId: "ws_a", bucket: D(1, 0), metric: "runs.succeeded", value: 5 },
      { workspaceId: "ws_a", bucket: D(2, 0), metric: "runs.succeeded", value: 4 },
    ]);
    expect(await deps.store.usage.summary("ws_a", D(1, 6), D(3, 0), "hour")).toEqual(await deps.store.usage.list("ws_a", D(1, 6), D(3, 0)));
    expect((await deps.store.usage.summary("ws_a", D(1, 6), D(3, 0), "hour")).map((r) => r.value)).toEqual([7, 3, 4]);
  });

  it("keeps day rollups in step with the hours, and a day report over partial days matches the hours", async () => {
    const at = (d: number, h: number) => new Date(Date.UTC(2030, 0, d, h)).toISOString();
    const rows: Array<{ workspaceId: string; bucket: string; metric: string; value: number }> = [];
    for (let d = 1; d <= 6; d++)
      for (const h of [0, 7, 13, 23])
        rows.push({ workspaceId: "ws_a", bucket: at(d, h), metric: h % 2 ? "runs.failed" : "runs.succeeded", value: d * 100 + h });
    await deps.store.usage.add(rows.slice(0, 10));
    await deps.store.usage.add(rows.slice(10)); // two flushes add to the same day rows
    const hourly = (from: string, before: string) => {
      const sums = new Map<string, number>();
      for (const r of rows)
        if (r.bucket >= from && r.bucket < before)
          sums.set(`${r.bucket.slice(0, 10)}T00:00:00.000Z|${r.metric}`, (sums.get(`${r.bucket.slice(0, 10)}T00:00:00.000Z|${r.metric}`) ?? 0) + r.value);
      return [...sums.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, value]) => ({ workspaceId: "ws_a", bucket: k.split("|")[0], metric: k.split("|")[1], value }));
    };
    for (const [from, before] of [
      [at(1, 7), at(6, 13)],
      [at(1, 0), at(7, 0)],
      [at(2, 13), at(3, 7)],
      [at(3, 0), at(3, 23)],
      [at(1, 23), at(5, 0)],
    ] as const) {
      expect(await deps.store.usage.summary("ws_a", from, before, "day")).toEqual(hourly(from, before));
    }
    expect(await deps.sql("select value from usage_counters where bucket = 'd:2030-01-02' and metric = 'runs.failed'")).toEqual([{ value: 207 + 213 + 223 }]);
    // Hour listings never include the day rows.
    expect((await deps.store.usage.list("ws_a", at(1, 0), at(9, 0))).length).toBe(rows.length);
  });

  it("writes large batches (more rows than one statement takes)", async () => {
    const rows = Array.from({ length: 1234 }, (_, i) => ({ workspaceId: `ws_${i}`, bucket: H(0), metric: "api.calls", value: 1 }));
    await deps.store.usage.add(rows);
    expect(await deps.sql("select count(*) as n, cast(sum(value) as bigint) as total from usage_counters where bucket not like 'd:%'")).toEqual([
      { n: 1234, total: 1234 },
    ]);
    // and one day rollup per counter
    expect(await deps.sql("select count(*) as n, cast(sum(value) as bigint) as total from usage_counters where bucket like 'd:%'")).toEqual([
      { n: 1234, total: 1234 },
    ]);
  });

  it("concurrent additions from two processes add up exactly", async () => {
    other = await anotherProcess(deps.url);
    await race([deps.store, other], 20, (s, i) => s.usage.add([{ workspaceId: "ws_a", bucket: H(5), metric: "api.calls", value: i + 1 }]));
    expect((await deps.store.usage.list("ws_a", H(5), H(6)))[0]!.value).toBe((20 * 21) / 2);
  });
});
