/** A step's memory over the database: limits with messages that name them, and test runs kept apart. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps, type TestDeps } from "@/server/testing";
import { seedWorkspace } from "@/server/runner/testing/seed";
import { MEMORY_LIMITS, openMemory } from "./open-memory";

let deps: TestDeps;
let ws: string;
const T0 = new Date("2026-11-25T10:00:00.000Z");

beforeEach(async () => {
  deps = await createTestDeps({ now: () => T0 });
  ws = (await seedWorkspace(deps)).workspaceId;
});
afterEach(() => deps.close());

const at = (test = false, automationId = "aut_a") => ({ workspaceId: ws, automationId, runId: "run_1", nodeId: "n1", test });

describe("openMemory", () => {
  it("refuses keys and values over the limits, and nothing to remember, as permanent failures naming the limit", async () => {
    const m = openMemory(deps, at());
    await expect(m.set("k".repeat(513), 1, { scope: "automation", keepMs: 1000 })).rejects.toMatchObject({
      permanent: true,
      message: "the memory key is 513 characters long; the limit is 512",
    });
    await expect(m.set("k", "x".repeat(MEMORY_LIMITS.valueBytes), { scope: "automation", keepMs: 1000 })).rejects.toMatchObject({
      permanent: true,
      message: `the value to remember is ${MEMORY_LIMITS.valueBytes + 2} bytes of JSON; the limit is ${MEMORY_LIMITS.valueBytes}`,
    });
    await expect(m.set("k", undefined, { scope: "automation", keepMs: 1000 })).rejects.toMatchObject({ permanent: true });
    await expect(m.get("", "automation")).rejects.toMatchObject({ message: "the memory key is empty" });
  });

  it("a full workspace refuses a new key with a message that says what to do", async () => {
    const m = openMemory(deps, at(), { ...MEMORY_LIMITS, entriesPerWorkspace: 2 });
    await m.set("a", 1, { scope: "automation", keepMs: 1000 });
    await m.set("b", 1, { scope: "workspace", keepMs: 1000 });
    await expect(m.set("c", 1, { scope: "automation", keepMs: 1000 })).rejects.toMatchObject({
      permanent: true,
      message: expect.stringContaining("already remembers 2 values (the limit)"),
    });
  });

  it("automation scope is per automation, workspace scope is shared; test runs see neither and keep theirs a day at most", async () => {
    const a = openMemory(deps, at(false, "aut_a"));
    const b = openMemory(deps, at(false, "aut_b"));
    const testA = openMemory(deps, at(true, "aut_a"));
    await a.set("k", "mine", { scope: "automation", keepMs: 60_000 });
    await a.set("k", "shared", { scope: "workspace", keepMs: 60_000 });
    expect(await b.get("k", "automation")).toBeUndefined();
    expect((await b.get("k", "workspace"))?.value).toBe("shared");
    expect(await testA.get("k", "automation")).toBeUndefined();
    expect(await testA.get("k", "workspace")).toBeUndefined();
    const kept = await testA.set("k", "test", { scope: "automation", keepMs: 30 * 86_400_000 });
    expect(kept.expiresAt).toBe("2026-11-26T10:00:00.000Z");
    expect((await a.get("k", "automation"))?.value).toBe("mine");
    expect(await testA.delete("k", "automation")).toBe(true);
    expect((await a.get("k", "automation"))?.value).toBe("mine");
  });
});
