/**
 * The public API from a script's point of view, against the built app: the seeded admin key
 * (e2e/.auth/seed.json) lists workspaces, creates a line and a task idempotently, follows its
 * activity; bad keys and unknown paths answer problem+json; the OpenAPI document and the
 * reference page are served. (The full matrix runs in server/rest/*.test.ts, also over HTTP.)
 */
import { test, expect } from "../fixtures";

test("a script lists workspaces, creates a task idempotently and follows its activity", async ({ api, seed }) => {
  const list = await api.get("/api/v1/factories");
  expect(list.status()).toBe(200);
  expect(list.headers()["ratelimit-limit"]).toMatch(/^\d+$/);
  const { data } = await list.json();
  expect(data.map((w: { id: string }) => w.id)).toContain(seed.workspaceId);

  const line = await (await api.post(`/api/v1/factories/${seed.workspaceId}/lines`, { data: { name: `e2e line ${Date.now()}` } })).json();
  const key = `e2e-${Date.now()}`;
  const body = { lineId: line.id, title: "Disk full on db1", data: { host: "db1" } };
  const first = await api.post(`/api/v1/factories/${seed.workspaceId}/orders`, { data: body, headers: { "Idempotency-Key": key } });
  expect(first.status()).toBe(201);
  const again = await api.post(`/api/v1/factories/${seed.workspaceId}/orders`, { data: body, headers: { "Idempotency-Key": key } });
  expect(again.headers()["idempotent-replayed"]).toBe("true");
  const order = await first.json();
  expect((await again.json()).id).toBe(order.id);

  const moved = await api.post(`/api/v1/factories/${seed.workspaceId}/orders/${order.id}/transitions`, { data: { action: "close", outcome: "rejected" } });
  expect((await moved.json()).status).toBe("closed");
  const activity = await (await api.get(`/api/v1/factories/${seed.workspaceId}/orders/${order.id}/activity`)).json();
  expect(activity.data.map((e: { kind: string }) => e.kind)).toEqual(["created", "closed"]);
  expect((await api.delete(`/api/v1/factories/${seed.workspaceId}/lines/${line.id}`)).status()).toBe(204);
});

test("bad keys, unknown paths and wrong methods answer problem+json", async ({ playwright, baseURL }) => {
  const anon = await playwright.request.newContext({ baseURL });
  try {
    const none = await anon.get("/api/v1/factories");
    expect(none.status()).toBe(401);
    expect(none.headers()["www-authenticate"]).toMatch(/^Bearer/);
    expect(none.headers()["content-type"]).toBe("application/problem+json");
    const bad = await anon.get("/api/v1/factories", { headers: { Authorization: "Bearer cvk_00000000_" + "A".repeat(43) } });
    expect((await bad.json()).detail).toContain("not known");
    const missing = await anon.get("/api/v1/no/such/thing");
    expect(missing.status()).toBe(404);
    expect((await missing.json()).code).toBe("not_found");
    const wrong = await anon.put("/api/v1/factories", { data: {} });
    expect(wrong.status()).toBe(405);
    expect(wrong.headers()["allow"]).toBe("GET, POST");
    // Broken percent-encoding is answered by the custom server's front door, before Next.js decodes params.
    const broken = await anon.get("/api/v1/factories/%ZZ");
    expect(broken.status()).toBe(400);
    expect(broken.headers()["content-type"]).toBe("application/problem+json");
    expect((await broken.json()).detail).toContain("broken percent-encoding");
  } finally {
    await anon.dispose();
  }
});

test("the OpenAPI document and the API reference page are served", async ({ page, request }) => {
  const doc = await (await request.get("/api/v1/openapi.json")).json();
  expect(doc.openapi).toBe("3.1.0");
  expect(doc.paths["/factories/{factoryId}/orders"].post.operationId).toBe("createOrder");
  const res = await page.goto("/api/v1/docs");
  expect(res?.status()).toBe(200);
  expect(await page.content()).toContain("/api/v1/openapi.json");
});
