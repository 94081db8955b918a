import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps } from "../../testing";
import { setupOwner } from "../users/setup-owner";
import { getUserActor } from "../users/get-user-actor";
import { createWorkspace } from "../workspaces/create-workspace";
import { ApiKeyAuthError, authenticateApiKey, createApiKey, hashApiKey, listApiKeys, revokeApiKey } from "./api-keys";
import type { Actor } from "../../auth/permissions";

let deps: Awaited<ReturnType<typeof createTestDeps>>;
let owner: Actor;
let wsId: string;

beforeEach(async () => {
  deps = await createTestDeps();
  const setup = await setupOwner(deps, { email: "o@example.com", password: "correct horse battery" });
  owner = (await getUserActor(deps, setup.user.id))!;
  wsId = setup.workspace.id;
});
afterEach(async () => deps.close());

async function reason(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiKeyAuthError) return e.reason;
    throw e;
  }
  return "ok";
}

describe("API keys", () => {
  it("creates a key shown once, stores only its hash, and authenticates it", async () => {
    const { key, record } = await createApiKey(deps, owner, { name: "ci", role: "operator" });
    expect(key).toMatch(/^cvk_[a-z0-9]{8}_[A-Za-z0-9_-]{20,}$/);
    expect(key.startsWith(record.prefix + "_")).toBe(true);
    expect(JSON.stringify(record)).not.toContain(key.split("_").slice(2).join("_"));
    const stored = await deps.sql<Record<string, string>>("select * from api_keys");
    expect(stored[0]!.hash).toBe(hashApiKey(key));
    expect(JSON.stringify(stored)).not.toContain(key);
    const actor = await authenticateApiKey(deps, `Bearer ${key}`);
    expect(actor).toMatchObject({ kind: "apiKey", role: "operator", workspaceIds: null, keyId: record.id });
    expect((await listApiKeys(deps, owner))[0]!.lastUsedAt).not.toBeNull();
    const audit = JSON.stringify(await deps.sql("select * from audit_log"));
    expect(audit).toContain("apikey.create");
    expect(audit).not.toContain(key);
  });

  it("says precisely why a key is refused", async () => {
    const { key, record } = await createApiKey(deps, owner, { name: "ci", role: "viewer" });
    expect(await reason(authenticateApiKey(deps, null))).toBe("missing");
    expect(await reason(authenticateApiKey(deps, "Basic abc"))).toBe("malformed");
    expect(await reason(authenticateApiKey(deps, "Bearer nope"))).toBe("malformed");
    expect(await reason(authenticateApiKey(deps, `Bearer ${key}x`.replace(/_[^_]+x$/, "_" + "A".repeat(43))))).toBe("unknown");
    await revokeApiKey(deps, owner, record.id);
    expect(await reason(authenticateApiKey(deps, `Bearer ${key}`))).toBe("revoked");
    expect((await listApiKeys(deps, owner))[0]!.status).toBe("revoked");
  });

  it("expires keys at their expiry time", async () => {
    let now = new Date("2030-01-01T00:00:00Z");
    deps.now = () => now;
    const { key } = await createApiKey(deps, owner, { name: "short", role: "viewer", expiresAt: "2030-01-02T00:00:00Z" });
    expect(await reason(authenticateApiKey(deps, `Bearer ${key}`))).toBe("ok");
    now = new Date("2030-01-02T00:00:01Z");
    expect(await reason(authenticateApiKey(deps, `Bearer ${key}`))).toBe("expired");
  });

  it("validates input and limits keys to visible workspaces", async () => {
    await expect(createApiKey(deps, owner, { name: "", role: "root" as never, expiresAt: "2000-01-01T00:00:00Z" })).rejects.toMatchObject({
      code: "validation_failed",
      errors: [{ path: "name" }, { path: "role" }, { path: "expiresAt" }],
    });
    const other = await createWorkspace(deps, owner, { name: "other" });
    const { key } = await createApiKey(deps, owner, { name: "limited", role: "admin", workspaceIds: [wsId] });
    const limited = await authenticateApiKey(deps, `Bearer ${key}`);
    expect(limited.workspaceIds).toEqual([wsId]);
    await expect(createApiKey(deps, limited, { name: "escalate", role: "viewer", workspaceIds: [other.id] })).rejects.toMatchObject({ code: "not_found" });
    await expect(createApiKey(deps, limited, { name: "escalate", role: "viewer" })).rejects.toMatchObject({ code: "validation_failed" });
    const viewer = await authenticateApiKey(deps, `Bearer ${(await createApiKey(deps, owner, { name: "v", role: "viewer" })).key}`);
    await expect(createApiKey(deps, viewer, { name: "x", role: "viewer" })).rejects.toMatchObject({ code: "forbidden" });
  });
});
