/** The tRPC doors over the store (both backends): context, the workspace gate, and the routers of the storage seam's first domains. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps, type TestDeps } from "../testing";
import { setupOwner } from "../services/users/setup-owner";
import { getUserActor } from "../services/users/get-user-actor";
import { createCaller } from "./root";
import type { TRPCContext } from "./trpc";

let deps: TestDeps;
let ws: string;
let caller: ReturnType<typeof createCaller>;

beforeEach(async () => {
  deps = await createTestDeps();
  const setup = await setupOwner(deps, { email: "o@example.com", password: "correct horse battery" });
  ws = setup.workspace.id;
  caller = createCaller({ deps, actor: (await getUserActor(deps, setup.user.id)) as TRPCContext["actor"] });
});
afterEach(async () => deps.close());

describe("tRPC over the store", () => {
  it("refuses anonymous callers and hides unknown workspaces behind NOT_FOUND", async () => {
    await expect(createCaller({ deps, actor: null }).workspaces.list()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(caller.workspaces.get({ workspaceId: "ws_nope" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(caller.usage.get({ workspaceId: "ws_nope" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("workspaces, lines, usage, API keys, members and audit answer from the store", async () => {
    expect((await caller.workspaces.get({ workspaceId: ws })).id).toBe(ws);
    const created = await caller.workspaces.create({ name: "Payments" });
    expect((await caller.workspaces.list()).map((w) => w.name)).toEqual(expect.arrayContaining(["Payments"]));
    await caller.workspaces.rename({ workspaceId: created.id, name: "Payments 2" });
    expect((await caller.lines.list({ workspaceId: created.id })).data.map((l) => l.name)).toEqual(["default"]);
    expect((await caller.usage.get({ workspaceId: ws })).totals.apiCalls).toBe(0);
    const key = await caller.apiKeys.create({ name: "ci", role: "viewer", workspaceIds: [ws] });
    expect((await caller.apiKeys.list()).map((k) => [k.id, k.status])).toEqual([[key.record.id, "active"]]);
    expect((await caller.apiKeys.revoke({ keyId: key.record.id })).status).toBe("revoked");
    await expect(caller.apiKeys.revoke({ keyId: "key_nope" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(caller.apiKeys.create({ name: "", role: "viewer" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect((await caller.members.list()).map((m) => m.email)).toEqual(["o@example.com"]);
    await caller.workspaces.delete({ workspaceId: created.id });
    const actions = (await caller.audit.list()).items.map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["workspace.create", "workspace.rename", "workspace.delete", "apikey.create", "apikey.revoke"]));
  });
});
