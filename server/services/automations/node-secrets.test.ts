import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDeps } from "../../testing";
import { handleHookRequest } from "../../webhooks/lean-listener";
import { seedWorkspace } from "../../runner/testing/seed";
import { createAutomation, replaceAutomation } from "./save-automation";
import { getVersion, restoreVersion } from "./get-automation";
import { SECRET_PLACEHOLDER } from "./node-secrets";

let deps: Awaited<ReturnType<typeof createTestDeps>>;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;
let server: http.Server;
let base: string;

beforeEach(async () => {
  deps = await createTestDeps();
  ws = await seedWorkspace(deps);
  server = http.createServer((req, res) => handleHookRequest(req, res, deps));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  server.close();
  await deps.close();
});

const graph = (secret: string) => ({
  nodes: [{ id: "t", name: "hook", key: "core.webhook", config: { authentication: "bearer", secret } }],
  edges: [],
});
const deliver = (url: string, token: string) =>
  fetch(url.replace(/^https?:\/\/[^/]+/, base), {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: "{}",
  }).then((r) => r.status);

describe("secrets in node config", () => {
  it("are stored encrypted, never returned, kept through a placeholder save and restored with their version", async () => {
    const a = await createAutomation(deps, ws.actor, ws.workspaceId, { name: "hook", enabled: true, graph: graph("first-secret-value") });
    const stored = (await deps.store.automations.get(ws.workspaceId, a.id))!;
    const versions = await deps.store.automations.versions(a.id);
    expect(JSON.stringify([stored.graph, versions.map((v) => v.graph)])).not.toContain("first-secret-value");
    expect(a.graph.nodes[0]!.config.secret).toBe(SECRET_PLACEHOLDER);
    const url = a.triggers[0]!.url!;
    expect(await deliver(url, "first-secret-value")).toBe(202);
    expect(await deliver(url, "wrong-secret-value")).toBe(401);

    // The editor sends back what it saw (the placeholder): the secret is kept.
    const v2 = await replaceAutomation(deps, ws.actor, ws.workspaceId, a.id, { name: "hook renamed", enabled: true, graph: a.graph });
    expect(v2.version).toBe(2);
    expect(await deliver(url, "first-secret-value")).toBe(202);

    // A new secret replaces it.
    await replaceAutomation(deps, ws.actor, ws.workspaceId, a.id, { name: "hook", enabled: true, graph: graph("second-secret-value") });
    expect(await deliver(url, "first-secret-value")).toBe(401);
    expect(await deliver(url, "second-secret-value")).toBe(202);
    expect((await getVersion(deps, ws.actor, ws.workspaceId, a.id, 1)).graph.nodes[0]!.config.secret).toBe(SECRET_PLACEHOLDER);

    // Restoring version 1 brings back version 1's secret.
    await restoreVersion(deps, ws.actor, ws.workspaceId, a.id, 1);
    expect(await deliver(url, "first-secret-value")).toBe(202);
    expect(await deliver(url, "second-secret-value")).toBe(401);
  });

  it("refuses a placeholder for a node that has no stored secret, naming the field", async () => {
    await expect(createAutomation(deps, ws.actor, ws.workspaceId, { name: "hook", graph: graph(SECRET_PLACEHOLDER) })).rejects.toMatchObject({
      code: "validation_failed",
      errors: [{ nodeId: "t", path: "graph.nodes.0.config.secret" }],
    });
  });
});
