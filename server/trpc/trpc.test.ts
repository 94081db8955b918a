/** The tRPC doors over the store (both backends): context, the workspace gate, and the routers of the storage seam's first domains. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps, type TestDeps } from "../testing";
import { setupOwner } from "../services/users/setup-owner";
import { getUserActor } from "../services/users/get-user-actor";
import { createCaller } from "./root";
import type { TRPCContext } from "./trpc";
import { automationRow } from "@/db/stores/testing/fixtures";

let deps: TestDeps;
let ws: string;
let caller: ReturnType<typeof createCaller>;
let ownerId: string;

beforeEach(async () => {
  deps = await createTestDeps();
  const setup = await setupOwner(deps, { email: "o@example.com", password: "correct horse battery" });
  ws = setup.workspace.id;
  ownerId = setup.user.id;
  caller = createCaller({ deps, actor: (await getUserActor(deps, setup.user.id)) as TRPCContext["actor"] });
});
afterEach(async () => deps.close());

describe("tRPC over the store", () => {
  it("the database not answering is SERVICE_UNAVAILABLE with one clear message, never the driver's words", async () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 10.0.0.5:5432"), { code: "ECONNREFUSED" });
    for (const k of Object.keys(deps.store.usage) as Array<keyof typeof deps.store.usage>)
      (deps.store.usage as unknown as Record<string, unknown>)[k] = async () => {
        throw refused;
      };
    const e = await caller.usage.get({ workspaceId: ws }).catch((x: unknown) => x as Error & { code?: string });
    expect(e).toMatchObject({ code: "SERVICE_UNAVAILABLE", message: "Conveyor cannot reach its database right now" });
  });

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

  it("runs.failedRecently counts the workspace's production runs that failed in the last 24 hours, for a viewer too", async () => {
    const now = Date.UTC(2030, 5, 1, 3, 0);
    deps.now = () => new Date(now);
    const aut = automationRow(ws);
    await deps.store.automations.insert(aut);
    const failAt = async (hoursAgo: number) => {
      const r = await deps.store.runs.create({
        workspaceId: ws,
        automationId: aut.id,
        version: 1,
        triggerNodeId: "t",
        envelope: { type: "t", timestamp: "2030-01-01T00:00:00.000Z", data: {} },
        source: "manual",
        firstNodes: ["n"],
        at: new Date(now - hoursAgo * 3_600_000),
      });
      await deps.store.runs.finish(r!.runId, "failed", { message: "boom" }, new Date(now), () => ({ name: "n", key: "k" }));
    };
    await failAt(1);
    await failAt(23.9);
    await failAt(24.1); // outside the window
    await failAt(2);
    const [testRun] = await deps.sql<{ id: string }>("select id from runs where created_at = ?", new Date(now - 2 * 3_600_000).toISOString());
    await deps.sql("update runs set mode = 'test' where id = ?", testRun!.id); // a failed test run is not counted
    const owner = (await getUserActor(deps, ownerId)) as Extract<TRPCContext["actor"], { kind: "user" }>;
    const viewer = createCaller({ deps, actor: { ...owner, role: "viewer", label: "user:viewer" } });
    expect(await viewer.runs.failedRecently({ workspaceId: ws })).toEqual({ failed: 2, more: false, since: new Date(now - 86_400_000).toISOString() });
    await expect(viewer.runs.failedRecently({ workspaceId: "ws_nope" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
