import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineIntegration, type AnyIntegration } from "@/integrations/core/define";
import { registerTestIntegration } from "@/integrations/registry";
import { ui } from "@/integrations/core/ui-meta";
import { createTestDeps } from "../../testing";
import { seedWorkspace } from "../../runner/testing/seed";
import { createConnection, deleteConnection, listConnections, loadConnectionHandle, updateConnection, verifyConnection } from ".";

registerTestIntegration(
  defineIntegration({
    key: "stubform",
    title: "Stub form",
    description: "test",
    icon: "x",
    components: [],
    triggers: [],
    connection: {
      kind: "form",
      schema: z.object({
        baseUrl: z.string().url(),
        apiAuth: z.discriminatedUnion("type", [
          z.object({ type: z.literal("none") }),
          z.object({ type: z.literal("bearer"), token: z.string().meta(ui({ sensitive: true })) }),
        ]),
        webhookSecret: z
          .string()
          .optional()
          .meta(ui({ sensitive: true })),
      }),
      async verify({ connection }) {
        if (!connection.config.baseUrl.includes("good")) throw new Error(`GET ${connection.config.baseUrl}/-/ready failed: connection refused`);
      },
    },
  }) as AnyIntegration,
);

let deps: Awaited<ReturnType<typeof createTestDeps>>;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
beforeEach(async () => {
  deps = await createTestDeps();
  ws = await seedWorkspace(deps);
});
afterEach(async () => deps.close());

describe("form connections", () => {
  it("encrypts secret fields, never returns them, keeps an omitted secret on update", async () => {
    const c = await createConnection(deps, ws.actor, ws.workspaceId, {
      integration: "stubform",
      name: "prod",
      config: { baseUrl: "http://good.local", apiAuth: { type: "bearer", token: "tok-123456" }, webhookSecret: "whs-abcdef" },
    });
    expect(c.config).toEqual({ baseUrl: "http://good.local", apiAuth: { type: "bearer" } });
    expect(c.secretsSet.sort()).toEqual(["apiAuth.token", "webhookSecret"]);
    const row = (await deps.store.connections.getById(c.id))!;
    expect(JSON.stringify(row)).not.toContain("tok-123456");
    const u = await updateConnection(deps, ws.actor, ws.workspaceId, c.id, { config: { baseUrl: "http://good2.local", apiAuth: { type: "bearer" } } });
    expect(u.config.baseUrl).toBe("http://good2.local");
    const h = await loadConnectionHandle(deps, c.id);
    expect(h.config).toMatchObject({ apiAuth: { type: "bearer", token: "tok-123456" }, webhookSecret: "whs-abcdef" });
    expect(JSON.stringify(await listConnections(deps, ws.actor, ws.workspaceId))).not.toMatch(/tok-123456|whs-abcdef/);
  });

  it("a connection is untested until a test passes; new settings make it untested again", async () => {
    const c = await createConnection(deps, ws.actor, ws.workspaceId, {
      integration: "stubform",
      name: "prod",
      config: { baseUrl: "http://good.local", apiAuth: { type: "none" } },
    });
    expect(c.status).toBe("ready");
    expect(c.state).not.toHaveProperty("verifiedAt");
    const v = await verifyConnection(deps, ws.actor, ws.workspaceId, c.id);
    expect(v.ok).toBe(true);
    expect(Date.parse(String(v.connection.state.verifiedAt))).toBeGreaterThanOrEqual(Date.parse(c.createdAt));
    // A rename, or the same settings saved again (the form's Save after "Save and test"), keeps the
    // test's outcome; changed settings drop it.
    expect((await updateConnection(deps, ws.actor, ws.workspaceId, c.id, { name: "prod 2" })).state).toHaveProperty("verifiedAt");
    const same = await updateConnection(deps, ws.actor, ws.workspaceId, c.id, { config: { baseUrl: "http://good.local", apiAuth: { type: "none" } } });
    expect(same.state).toHaveProperty("verifiedAt");
    const changed = await updateConnection(deps, ws.actor, ws.workspaceId, c.id, { config: { baseUrl: "http://good2.local", apiAuth: { type: "none" } } });
    expect(changed.state).not.toHaveProperty("verifiedAt");
  });

  it("verify stores the outcome with the upstream's message; invalid settings list every field", async () => {
    const c = await createConnection(deps, ws.actor, ws.workspaceId, {
      integration: "stubform",
      name: "bad",
      config: { baseUrl: "http://bad.local", apiAuth: { type: "none" } },
    });
    const v = await verifyConnection(deps, ws.actor, ws.workspaceId, c.id);
    expect(v).toMatchObject({ ok: false, connection: { status: "error", statusMessage: expect.stringContaining("connection refused") } });
    expect(v.connection.state).not.toHaveProperty("verifiedAt");
    await expect(
      createConnection(deps, ws.actor, ws.workspaceId, { integration: "stubform", name: "x", config: { baseUrl: "nope", apiAuth: { type: "weird" } } }),
    ).rejects.toMatchObject({
      code: "validation_failed",
      errors: expect.arrayContaining([expect.objectContaining({ path: "config.baseUrl" }), expect.objectContaining({ path: "config.apiAuth.type" })]),
    });
    await deleteConnection(deps, ws.actor, ws.workspaceId, c.id);
    expect(await listConnections(deps, ws.actor, ws.workspaceId)).toHaveLength(0);
  });
});
