import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RegistrationRecord } from "@/integrations/core/define";
import { createTestDeps } from "../../testing";
import { seedWorkspace } from "../../runner/testing/seed";
import { newId } from "../../ids";
import { sharedRegistrations } from "./registrations";

let deps: Awaited<ReturnType<typeof createTestDeps>>;
let connectionId: string;
beforeEach(async () => {
  deps = await createTestDeps();
  const ws = await seedWorkspace(deps);
  connectionId = newId("con");
  const at = new Date().toISOString();
  await deps.store.connections.insert({
    id: connectionId,
    workspaceId: ws.workspaceId,
    integration: "stub",
    name: "c",
    config: {},
    secretsEnc: null,
    tokensEnc: null,
    tokenVersion: 0,
    tokenExpiresAt: null,
    refreshLockOwner: null,
    refreshLockUntil: null,
    state: {},
    status: "ready",
    statusMessage: null,
    createdBy: null,
    createdAt: at,
    updatedAt: at,
  });
});
afterEach(async () => deps.close());

const regs = (i: number) => sharedRegistrations(deps.store, connectionId, { automationId: `aut_${i}`, nodeId: "t" });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("shared registrations", () => {
  it("concurrent first users register upstream once; the last of concurrent releases destroys it once", async () => {
    let created = 0;
    const create = async (): Promise<RegistrationRecord> => {
      created++;
      await pause(50); // the upstream call takes a while: the others must wait, not register again
      return { upstreamId: "up-1", data: { ids: [1] } };
    };
    const got = await Promise.all(Array.from({ length: 5 }, (_, i) => regs(i).acquire("jira", create)));
    expect(created).toBe(1);
    expect(got.every((r) => r.upstreamId === "up-1")).toBe(true);
    expect(await regs(9).get("jira")).toEqual({ upstreamId: "up-1", data: { ids: [1] } });

    const destroyed: string[] = [];
    await Promise.all(Array.from({ length: 5 }, (_, i) => regs(i).release("jira", async (r) => void destroyed.push(r.upstreamId))));
    expect(destroyed).toEqual(["up-1"]);
    expect(await regs(0).get("jira")).toBeUndefined();
  });

  it("a failed upstream create leaves nothing behind; a failed destroy keeps the registration for a later try", async () => {
    await expect(
      regs(1).acquire("jira", async () => {
        throw new Error("upstream down");
      }),
    ).rejects.toThrow("upstream down");
    expect(await deps.sql("select id from webhook_registrations")).toHaveLength(0);
    expect(await deps.sql("select automation_id from webhook_registration_users")).toHaveLength(0);

    await regs(1).acquire("jira", async () => ({ upstreamId: "up-2" }));
    await expect(
      regs(1).release("jira", async () => {
        throw new Error("cannot delete");
      }),
    ).rejects.toThrow("cannot delete");
    expect(await regs(1).get("jira")).toEqual({ upstreamId: "up-2" });
  });

  it("an existing registration is updated for a new user and saved", async () => {
    await regs(1).acquire("jira", async () => ({ upstreamId: "up-1", expiresAt: "2030-01-01T00:00:00.000Z" }));
    const rec = await regs(2).acquire(
      "jira",
      async () => {
        throw new Error("must not create");
      },
      async (e) => ({ ...e, data: { grown: true } }),
    );
    expect(rec).toEqual({ upstreamId: "up-1", expiresAt: "2030-01-01T00:00:00.000Z", data: { grown: true } });
    expect(await regs(3).get("jira")).toEqual(rec);
    await regs(3).save("jira", { upstreamId: "up-9" });
    expect(await regs(1).get("jira")).toEqual({ upstreamId: "up-9" });
  });
});
