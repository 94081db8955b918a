/** `conveyor keys list` and `keys revoke`: a leaked key can be revoked from the server's shell, not only in Settings. */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDeps } from "../testing";
import { setDeps } from "../deps";
import { seedRest, type Seed } from "../rest/testing/seed";
import { authenticateApiKey } from "../services/api-keys/api-keys";
import { runCommand } from "./commands";

let deps: Awaited<ReturnType<typeof createTestDeps>>;
let s: Seed;
beforeAll(async () => {
  deps = await createTestDeps();
  setDeps(deps);
  s = await seedRest(deps);
});
afterAll(async () => deps.close());

async function output(argv: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((m: string) => void out.push(m));
  const error = vi.spyOn(console, "error").mockImplementation((m: string) => void err.push(m));
  try {
    return { code: await runCommand(argv, {}), out: out.join("\n"), err: err.join("\n") };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe("conveyor keys", () => {
  it("lists keys by id and prefix, never the secret, and revokes one by prefix", async () => {
    const viewer = s.keys.viewer;
    const prefix = viewer.split("_").slice(0, 2).join("_");
    const listed = await output(["keys", "list"]);
    expect(listed.code).toBe(0);
    const row = listed.out.split("\n").find((l) => l.split("\t")[1] === prefix)!;
    expect(row.split("\t")).toEqual([expect.stringMatching(/^key_/), prefix, expect.any(String), "viewer", "*", "active", expect.any(String)]);
    expect(listed.out).not.toContain(viewer.split("_").slice(2).join("_"));

    expect((await authenticateApiKey(deps, `Bearer ${viewer}`)).role).toBe("viewer");
    const revoked = await output(["keys", "revoke", prefix]);
    expect(revoked.code).toBe(0);
    expect(revoked.err).toContain(`${prefix}`);
    await expect(authenticateApiKey(deps, `Bearer ${viewer}`)).rejects.toMatchObject({ reason: "revoked" });
    expect((await output(["keys", "list"])).out).toMatch(new RegExp(`${prefix}\\t.*\\trevoked\\t`));
  });
  it("says what to pass when the key is missing or unknown", async () => {
    await expect(runCommand(["keys", "revoke"], {})).rejects.toThrow(/needs the key's id/);
    await expect(runCommand(["keys", "revoke", "cvk_nope"], {})).rejects.toThrow(/No API key cvk_nope/);
  });
});
