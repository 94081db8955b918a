/**
 * The door permission table against the doors themselves: every tRPC procedure and every REST
 * operation has an entry, and each one is walked with every role: refused (FORBIDDEN / 403)
 * exactly when the role is below the table's minimum. Pairs of entry points that do the same thing
 * on both doors must need the same action.
 */
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter, createCaller } from "../trpc/root";
import { ALL_OPERATIONS } from "../rest/openapi";
import { createRestClient } from "../rest/testing/rest-client";
import { seedRest, type Seed } from "../rest/testing/seed";
import { createTestDeps } from "../testing";
import { setDeps } from "../deps";
import { setRestConfig } from "../rest/rest-config";
import { DOOR_PERMISSIONS, minimumRole, type DoorKey } from "./door-permissions";
import { ROLES, roleRank, type Role } from "./permissions";

let deps: Awaited<ReturnType<typeof createTestDeps>>;
let s: Seed;
const api = createRestClient({});

beforeAll(async () => {
  deps = await createTestDeps();
  setDeps(deps);
  setRestConfig({ rateLimit: 1_000_000 });
  s = await seedRest(deps);
});
afterAll(async () => deps.close());

const procedures = Object.keys((appRouter as unknown as { _def: { procedures: Record<string, unknown> } })._def.procedures);

describe("door permission table", () => {
  it("has exactly one entry per tRPC procedure and REST operation", () => {
    const expected = [...procedures.map((p) => `trpc:${p}`), ...ALL_OPERATIONS.map((o) => `rest:${o.id}`)].sort();
    expect(Object.keys(DOOR_PERMISSIONS).sort()).toEqual(expected);
  });

  it("gives the same action to the same capability on both doors", () => {
    const pairs: Array<[DoorKey, DoorKey]> = [
      ["rest:verifyConnection", "trpc:connections.verify"],
      ["rest:createConnection", "trpc:connections.create"],
      ["rest:listConnections", "trpc:connections.list"],
      ["rest:deleteConnection", "trpc:connections.delete"],
      ["rest:updateConnection", "trpc:connections.update"],
      ["rest:createFactory", "trpc:workspaces.create"],
      ["rest:updateFactory", "trpc:workspaces.rename"],
      ["rest:deleteFactory", "trpc:workspaces.delete"],
      ["rest:createApp", "trpc:automations.create"],
      ["rest:replaceApp", "trpc:automations.save"],
      ["rest:patchApp", "trpc:automations.patch"],
      ["rest:deleteApp", "trpc:automations.delete"],
      ["rest:listApps", "trpc:automations.list"],
      ["rest:listVersions", "trpc:automations.versions"],
      ["rest:startRun", "trpc:runs.start"],
      ["rest:cancelRun", "trpc:runs.cancel"],
      ["rest:retryRun", "trpc:runs.retry"],
      ["rest:listRuns", "trpc:runs.list"],
      ["rest:getRecentFailures", "trpc:runs.failedRecently"],
      ["rest:startTestRun", "trpc:runs.test"],
      ["rest:createLine", "trpc:lines.create"],
      ["rest:updateLine", "trpc:lines.update"],
      ["rest:deleteLine", "trpc:lines.delete"],
      ["rest:createOrder", "trpc:tasks.create"],
      ["rest:patchOrder", "trpc:tasks.patch"],
      ["rest:transitionOrder", "trpc:tasks.transition"],
      ["rest:commentOrder", "trpc:tasks.comment"],
      ["rest:createIntake", "trpc:intakes.createWebhook"],
      ["rest:deleteIntake", "trpc:intakes.delete"],
      ["rest:getUsage", "trpc:usage.get"],
      ["rest:getEgressPolicy", "trpc:settings.egress"],
      ["rest:updateEgressPolicy", "trpc:settings.updateEgress"],
    ];
    for (const [rest, trpc] of pairs) expect(DOOR_PERMISSIONS[rest], `${rest} vs ${trpc}`).toBe(DOOR_PERMISSIONS[trpc]);
  });

  for (const role of ROLES) {
    it(`walks every tRPC procedure as ${role}`, async () => {
      const actor = { kind: "user" as const, userId: s.owner.userId, organizationId: s.owner.organizationId, role, label: `user:${role}` };
      const caller = createCaller({ deps, actor }) as unknown as Record<string, Record<string, (input: unknown) => Promise<unknown>>>;
      for (const path of procedures) {
        const rule = DOOR_PERMISSIONS[`trpc:${path}` as DoorKey];
        const allowed = roleRank(role) >= roleRank(minimumRole(rule));
        const [router, proc] = path.split(".") as [string, string];
        let code: string | null = null;
        try {
          // Only the workspace: the door check runs before the rest of the input is parsed.
          await caller[router]![proc]!({ workspaceId: s.other });
        } catch (e) {
          code = e instanceof TRPCError ? e.code : "OTHER";
        }
        expect(code === "FORBIDDEN", `${role} ${path} (${rule}) → ${code}`).toBe(!allowed);
      }
    });
  }

  const keyRoles = ["viewer", "operator", "editor", "admin"] as const;
  it("walks every REST operation with a key of each role", async () => {
    for (const op of ALL_OPERATIONS) {
      expect(op.role).toBe(minimumRole(DOOR_PERMISSIONS[`rest:${op.id}` as DoorKey]));
      const path =
        "/api/v1" +
        op.path
          .replace("{factoryId}", s.other)
          .replace("{version}", "1")
          .replace(/\{\w+\}/g, "zz_missing");
      for (const role of keyRoles) {
        const res = await api.request(op.method, path, { key: s.keys[role], ...(op.body ? { body: {} } : {}) });
        const allowed = roleRank(role as Role) >= roleRank(op.role);
        expect(res.status === 403, `${role} ${op.method} ${op.path} → ${res.status} ${res.body?.detail ?? ""}`).toBe(!allowed);
      }
    }
  }, 60_000);

  it("refuses a workspace-limited admin key what is installation-wide", async () => {
    const created = await api.post("/api/v1/factories", { key: s.keys.limitedAdmin, body: { name: "Sneaky" } });
    expect(created.status).toBe(403);
    expect(created.body.detail).toMatch(/limited to one workspace; it cannot create workspaces/);
    expect((await api.get("/api/v1/settings/egress", { key: s.keys.limitedAdmin })).status).toBe(403);
    expect((await api.post("/api/v1/factories", { key: s.keys.admin, body: { name: "Fine" } })).status).toBe(201);
  });
});
