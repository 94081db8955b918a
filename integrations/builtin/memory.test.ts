/** core.remember and core.recall on their own (the memory is the in-memory test one; the database one is db/stores/memories.test.ts). */
import { describe, expect, it } from "vitest";
import { createTestContext, createTestMemory } from "../core/testing";
import type { RememberedValue, WaitResult } from "../core/define";
import { recallComponent } from "./recall";
import { rememberComponent } from "./remember";

const T0 = Date.parse("2026-11-25T10:00:00.000Z");

function clock() {
  let now = T0;
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

describe("core.remember", () => {
  it("stores the value under the key for the given time and says whether it replaced one", async () => {
    const c = clock();
    const memory = createTestMemory(c.now);
    const run = (value: unknown) =>
      rememberComponent.run(createTestContext(rememberComponent, { config: { key: "fp-1", value, keepFor: "2h" }, memory, now: c.now }));
    expect(await run("OPS-1")).toMatchObject({
      type: "core.remember",
      data: { key: "fp-1", scope: "automation", replaced: false, expiresAt: "2026-11-25T12:00:00.000Z" },
    });
    expect(await run("OPS-2")).toMatchObject({ data: { replaced: true } });
    expect((await memory.get("fp-1", "automation"))?.value).toBe("OPS-2");
  });

  it("refuses keep-for durations that are not durations or over a year, and an empty key", () => {
    const parse = (config: unknown) => rememberComponent.config.safeParse(config).success;
    expect(parse({ key: "k", value: 1 })).toBe(true); // 30d by default
    expect(parse({ key: "k", value: 1, keepFor: "soon" })).toBe(false);
    expect(parse({ key: "k", value: 1, keepFor: "400d" })).toBe(false);
    expect(parse({ key: "", value: 1 })).toBe(false);
  });
});

describe("core.recall", () => {
  const recall = (config: Record<string, unknown>, o: { memory: ReturnType<typeof createTestMemory>; now: () => Date; state?: unknown }) =>
    recallComponent.run(createTestContext(recallComponent, { config: { key: "fp-1", ...config }, memory: o.memory, now: o.now, state: o.state }));

  it("emits the remembered value with who stored it and when", async () => {
    const c = clock();
    const memory = createTestMemory(c.now);
    await memory.set("fp-1", { key: "OPS-7" }, { scope: "workspace", keepMs: 60_000 });
    expect(await recall({ scope: "workspace" }, { memory, now: c.now })).toMatchObject({
      type: "core.recall",
      data: { key: "fp-1", scope: "workspace", found: true, value: { key: "OPS-7" }, storedAt: "2026-11-25T10:00:00.000Z", storedBy: { runId: "run_test" } },
    });
    // Another scope holds nothing under that key.
    expect(await recall({ scope: "automation" }, { memory, now: c.now })).toMatchObject({ kind: "stop" });
  });

  it("when nothing is remembered: ends the branch, fails, or goes on with found = false", async () => {
    const c = clock();
    const memory = createTestMemory(c.now);
    expect(await recall({}, { memory, now: c.now })).toMatchObject({ kind: "stop", reason: 'nothing is remembered under "fp-1"' });
    await expect(recall({ ifMissing: "fail" }, { memory, now: c.now })).rejects.toMatchObject({ permanent: true, message: expect.stringContaining("fp-1") });
    expect(await recall({ ifMissing: "continue" }, { memory, now: c.now })).toMatchObject({ data: { found: false, value: null, storedBy: null } });
  });

  it("waits for a value another run is about to remember, polling at growing intervals, then gives up", async () => {
    const c = clock();
    const memory = createTestMemory(c.now);
    const cfg = { ifMissing: "wait", waitUpTo: "1m" };
    let r = (await recall(cfg, { memory, now: c.now })) as WaitResult;
    expect(r).toMatchObject({ kind: "wait", delayMs: 5_000 });
    c.advance(r.delayMs);
    r = (await recall(cfg, { memory, now: c.now, state: r.state })) as WaitResult;
    expect(r).toMatchObject({ kind: "wait", delayMs: 10_000 });
    await memory.set("fp-1", "OPS-9", { scope: "automation", keepMs: 60_000 });
    c.advance(r.delayMs);
    expect(await recall(cfg, { memory, now: c.now, state: r.state })).toMatchObject({ data: { found: true, value: "OPS-9" } });

    // Nothing comes: the last wait ends exactly at the limit, then the branch ends.
    const empty = createTestMemory(c.now);
    let state: unknown;
    let waited = 0;
    for (;;) {
      const out = await recall(cfg, { memory: empty, now: c.now, state });
      if ((out as { kind?: string }).kind !== "wait") {
        expect(out).toMatchObject({ kind: "stop", reason: 'nothing was remembered under "fp-1" within 1m' });
        break;
      }
      waited += (out as WaitResult).delayMs;
      c.advance((out as WaitResult).delayMs);
      state = (out as WaitResult).state;
    }
    expect(waited).toBe(60_000);
  });

  it("forgets what it read only after keeping it in the step's state, so a retry after the delete still emits it", async () => {
    const c = clock();
    const memory = createTestMemory(c.now);
    await memory.set("fp-1", "OPS-3", { scope: "automation", keepMs: 60_000 });
    const first = (await recall({ forget: true }, { memory, now: c.now })) as WaitResult;
    expect(first).toMatchObject({ kind: "wait", delayMs: 0 });
    expect((await memory.get("fp-1", "automation"))?.value).toBe("OPS-3"); // not forgotten yet
    const state = first.state as { found: RememberedValue };
    expect(await recall({ forget: true }, { memory, now: c.now, state })).toMatchObject({ data: { found: true, value: "OPS-3" } });
    expect(await memory.get("fp-1", "automation")).toBeUndefined();
    // The same step again (its commit was lost after the delete): same output.
    expect(await recall({ forget: true }, { memory, now: c.now, state })).toMatchObject({ data: { found: true, value: "OPS-3" } });
  });
});
