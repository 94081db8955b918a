/** Connections over REST: create/list/get/update/delete/verify; secret fields are write-only. */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDeps } from "../testing";
import { startRestTarget, type RestTarget } from "./testing/target";
import type { RestClient } from "./testing/rest-client";
import { seedRest, type Seed } from "./testing/seed";

let target: RestTarget;
let deps: TestDeps;
let api: RestClient;
let s: Seed;
let fake: http.Server;
let fakeUrl: string;

beforeAll(async () => {
  target = await startRestTarget();
  ({ deps, api } = target);
  s = await seedRest(deps);
  // A loopback stand-in that answers like a healthy Prometheus / Alertmanager for verify().
  fake = http.createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url?.startsWith("/api/v1/status/buildinfo")) return res.end(JSON.stringify({ status: "success", data: { version: "2.53.0" } }));
    if (req.url?.startsWith("/api/v2/status")) return res.end(JSON.stringify({ cluster: { status: "ready" }, versionInfo: { version: "0.27.0" } }));
    if (req.url?.startsWith("/api/v1/query")) return res.end(JSON.stringify({ status: "success", data: { resultType: "vector", result: [] } }));
    res.end(JSON.stringify({ status: "success", data: {} }));
  });
  await new Promise<void>((r) => fake.listen(0, "127.0.0.1", r));
  fakeUrl = `http://127.0.0.1:${(fake.address() as { port: number }).port}`;
}, 90_000);
afterAll(async () => {
  fake?.close();
  await target?.close();
});

describe("connections", () => {
  it("never returns secrets, keeps them on update, verifies and deletes", async () => {
    const base = `/api/v1/factories/${s.ws}/connections`;
    const secret = "whsec-very-secret-value";
    const token = "bearer-token-value";
    const created = await api.post(base, {
      key: s.keys.admin,
      body: {
        integration: "metrics",
        name: "prom",
        config: { metricsBaseUrl: fakeUrl, alertRouterBaseUrl: fakeUrl, apiAuth: { type: "bearer", token }, webhookSecret: secret },
      },
    });
    expect(created.status).toBe(201);
    expect(created.text).not.toContain(secret);
    expect(created.text).not.toContain(token);
    expect(created.body.secretsSet).toEqual(expect.arrayContaining(["webhookSecret"]));
    const id = created.body.id;
    const list = await api.get(base, { key: s.keys.viewer });
    expect(list.body.data.map((c: { id: string }) => c.id)).toContain(id);
    expect(list.text).not.toContain(secret);
    const got = await api.get(`${base}/${id}`, { key: s.keys.viewer });
    expect(got.body).toMatchObject({ integration: "metrics", name: "prom" });
    expect(got.text).not.toContain(secret);
    const renamed = await api.patch(`${base}/${id}`, { key: s.keys.admin, body: { name: "prom 2" } });
    expect(renamed.body.name).toBe("prom 2");
    expect(renamed.body.secretsSet).toEqual(expect.arrayContaining(["webhookSecret"]));
    const verified = await api.post(`${base}/${id}/verify`, { key: s.keys.editor });
    expect(verified.status).toBe(200);
    expect(typeof verified.body.ok).toBe("boolean");
    expect(verified.text).not.toContain(secret);
    const bad = await api.post(base, { key: s.keys.admin, body: { integration: "nope", name: "x", config: {} } });
    expect(bad.status).toBe(422);
    expect((await api.post(base, { key: s.keys.editor, body: { integration: "metrics", name: "x", config: {} } })).status).toBe(403);
    expect((await api.delete(`${base}/${id}`, { key: s.keys.admin })).status).toBe(204);
    expect((await api.get(`${base}/${id}`, { key: s.keys.viewer })).status).toBe(404);
  });

  it("names misspelt and missing settings instead of dropping them; nothing is stored", async () => {
    const base = `/api/v1/factories/${s.ws}/connections`;
    const before = (await api.get(base, { key: s.keys.viewer })).body.data.length;
    // A scripter's guess at the field name: `baseUrl` was dropped and the answer spoke of a URL format.
    const typo = await api.post(base, { key: s.keys.admin, body: { integration: "metrics", name: "typo", config: { baseUrl: "http://127.0.0.1:9090" } } });
    expect(typo.status).toBe(422);
    expect(typo.body.errors).toEqual([{ path: "config.metricsBaseUrl", message: "Required" }]);
    const extra = await api.post(base, {
      key: s.keys.admin,
      body: {
        integration: "metrics",
        name: "extra",
        config: { metricsBaseUrl: "http://127.0.0.1:9090", apiAuth: { type: "none", token: "x" }, colour: "red" },
      },
    });
    expect(extra.status).toBe(422);
    expect(extra.body.errors).toEqual([
      { path: "config.apiAuth.token", message: "Unknown field: token" },
      { path: "config.colour", message: "Unknown field: colour" },
    ]);
    expect((await api.get(base, { key: s.keys.viewer })).body.data).toHaveLength(before);
    // An update names the caller's own stray fields, never the stored secrets it merges in.
    const ok = await api.post(base, {
      key: s.keys.admin,
      body: { integration: "metrics", name: "switch", config: { metricsBaseUrl: "http://127.0.0.1:9090", apiAuth: { type: "bearer", token: "t0ken-value" } } },
    });
    expect(ok.status).toBe(201);
    const none = await api.patch(`${base}/${ok.body.id}`, {
      key: s.keys.admin,
      body: { config: { metricsBaseUrl: "http://127.0.0.1:9090", apiAuth: { type: "none" } } },
    });
    expect(none.status).toBe(200);
    const stray = await api.patch(`${base}/${ok.body.id}`, { key: s.keys.admin, body: { config: { metricsBaseUrl: "http://127.0.0.1:9090", baseUrl: "x" } } });
    expect(stray.status).toBe(422);
    expect(stray.body.errors).toEqual([{ path: "config.baseUrl", message: "Unknown field: baseUrl" }]);
  });

  it("marks a connection whose upstream is down", async () => {
    const base = `/api/v1/factories/${s.ws}/connections`;
    const created = await api.post(base, {
      key: s.keys.admin,
      body: { integration: "metrics", name: "down", config: { metricsBaseUrl: "http://127.0.0.1:9", apiAuth: { type: "none" } } },
    });
    const verified = await api.post(`${base}/${created.body.id}/verify`, { key: s.keys.editor });
    expect(verified.body.ok).toBe(false);
    expect(verified.body.connection.status).toBe("error");
  });
});
