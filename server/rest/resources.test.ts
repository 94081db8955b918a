/** Every workspace-level endpoint through the real route modules; responses checked against the OpenAPI document. */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDeps } from "../testing";
import { OVER_HTTP, startRestTarget, type RestTarget } from "./testing/target";
import type { RestClient } from "./testing/rest-client";
import { seedRest, type Seed } from "./testing/seed";
import { insertAutomation } from "./testing/automation-fixture";
import { ALL_OPERATIONS } from "./openapi";
import { roleRank } from "../auth/permissions";
import { createTaskFromIntake } from "../services/tasks/create-task";

let target: RestTarget;
let deps: TestDeps;
let api: RestClient;
let s: Seed;

beforeAll(async () => {
  target = await startRestTarget();
  ({ deps, api } = target);
  s = await seedRest(deps);
}, 90_000);
afterAll(() => target?.close());

describe("factories", () => {
  it("lists, creates, renames and deletes workspaces", async () => {
    const list = await api.get("/api/v1/factories", { key: s.keys.viewer });
    expect(list.body.data.map((w: { id: string }) => w.id)).toEqual(expect.arrayContaining([s.ws, s.other]));
    expect(list.body.nextCursor).toBeNull();
    const created = await api.post("/api/v1/factories", { key: s.keys.admin, body: { name: "Temp" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Temp" });
    expect(created.body).not.toHaveProperty("organizationId");
    const renamed = await api.patch(`/api/v1/factories/${created.body.id}`, { key: s.keys.admin, body: { name: "Temp 2" } });
    expect(renamed.body.name).toBe("Temp 2");
    expect((await api.delete(`/api/v1/factories/${created.body.id}`, { key: s.keys.admin })).status).toBe(204);
    expect((await api.get(`/api/v1/factories/${created.body.id}`, { key: s.keys.admin })).status).toBe(404);
  });
  it("answers a trailing slash with a 308 problem+json naming the path without it (Next answered a bare 308, no problem body)", async () => {
    const res = await api.get("/api/v1/factories/", { key: s.keys.viewer });
    expect(res.status).toBe(308);
    expect(res.headers.get("location")).toBe("/api/v1/factories");
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.body).toMatchObject({ status: 308, code: "trailing_slash", location: "/api/v1/factories", instance: "/api/v1/factories/" });
    expect(res.body.detail).toContain("send the same request to /api/v1/factories");
    // Following it serves the resource; the query string and a POST's method are kept.
    const followed = await api.get(res.headers.get("location")!, { key: s.keys.viewer });
    expect(followed.status).toBe(200);
    expect(followed.body.data.map((w: { id: string }) => w.id)).toContain(s.ws);
    const one = await api.get(`/api/v1/factories/${s.ws}/?limit=5`, { key: s.keys.viewer });
    expect([one.status, one.headers.get("location")]).toEqual([308, `/api/v1/factories/${s.ws}?limit=5`]);
    const post = await api.post("/api/v1/factories/", { key: s.keys.admin, body: { name: "Slash" } });
    expect([post.status, post.body.location]).toEqual([308, "/api/v1/factories"]);
  });
  it("echoes the caller's X-Request-Id on the front door's answers, as on the API's own", async () => {
    const slash = await api.get("/api/v1/factories/", { key: s.keys.viewer, headers: { "x-request-id": "pager-4711" } });
    expect([slash.status, slash.headers.get("x-request-id"), slash.body.requestId]).toEqual([308, "pager-4711", "pager-4711"]);
    const broken = await api.get("/api/v1/factories/%ZZ", { key: s.keys.viewer, headers: { "x-request-id": "pager-4712" } });
    expect([broken.status, broken.headers.get("x-request-id"), broken.body.requestId]).toEqual([400, "pager-4712", "pager-4712"]);
    // An id that is not a sane token is replaced, never echoed.
    const hostile = await api.get("/api/v1/factories/", { key: s.keys.viewer, headers: { "x-request-id": "<script>" } });
    expect(hostile.headers.get("x-request-id")).toMatch(/^req_[0-9a-z]{16}$/);
  });
  it("paginates workspaces with a cursor", async () => {
    const p1 = await api.get("/api/v1/factories?limit=1", { key: s.keys.viewer });
    expect(p1.body.data).toHaveLength(1);
    const p2 = await api.get(`/api/v1/factories?limit=1&cursor=${p1.body.nextCursor}`, { key: s.keys.viewer });
    expect(p2.body.data[0].id).not.toBe(p1.body.data[0].id);
  });
});

describe("lines", () => {
  it("creates, reads, updates and deletes lines; checks steps; refuses deletion while tasks are open", async () => {
    const appId = await insertAutomation(deps, s.ws);
    const bad = await api.post(`/api/v1/factories/${s.ws}/lines`, { key: s.keys.editor, body: { name: "L", steps: [{ name: "a", appId: "aut_nope" }] } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].path).toBe("steps.0.appId");
    const foreign = await insertAutomation(deps, s.other);
    expect(
      (await api.post(`/api/v1/factories/${s.ws}/lines`, { key: s.keys.editor, body: { name: "L", steps: [{ name: "a", appId: foreign }] } })).status,
    ).toBe(422);
    const line = await api.post(`/api/v1/factories/${s.ws}/lines`, { key: s.keys.editor, body: { name: "Triage", steps: [{ name: "first", appId }] } });
    expect(line.status).toBe(201);
    expect(line.body).toMatchObject({ name: "Triage", steps: [{ name: "first", appId }], openTasks: 0 });
    const id = line.body.id;
    expect((await api.get(`/api/v1/factories/${s.ws}/lines/${id}`, { key: s.keys.viewer })).body.name).toBe("Triage");
    const upd = await api.patch(`/api/v1/factories/${s.ws}/lines/${id}`, { key: s.keys.editor, body: { name: "Triage 2", steps: [] } });
    expect(upd.body).toMatchObject({ name: "Triage 2", steps: [] });
    const list = await api.get(`/api/v1/factories/${s.ws}/lines`, { key: s.keys.viewer });
    expect(list.body.data.map((l: { id: string }) => l.id)).toContain(id);
    const task = await api.post(`/api/v1/factories/${s.ws}/orders`, { key: s.keys.operator, body: { lineId: id, title: "blocker" } });
    const refused = await api.delete(`/api/v1/factories/${s.ws}/lines/${id}`, { key: s.keys.editor });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain("not closed");
    await api.post(`/api/v1/factories/${s.ws}/orders/${task.body.id}/transitions`, { key: s.keys.operator, body: { action: "close", outcome: "rejected" } });
    expect((await api.delete(`/api/v1/factories/${s.ws}/lines/${id}`, { key: s.keys.editor })).status).toBe(204);
    expect((await api.get(`/api/v1/factories/${s.ws}/lines/${id}`, { key: s.keys.viewer })).status).toBe(404);
  });
});

describe("orders", () => {
  let lineId: string;
  beforeAll(async () => {
    lineId = (await api.post(`/api/v1/factories/${s.ws}/lines`, { key: s.keys.editor, body: { name: "Manual" } })).body.id;
  });

  it("creates a draft, edits it, opens, comments and closes it, with a timeline", async () => {
    const t = await api.post(`/api/v1/factories/${s.ws}/orders`, { key: s.keys.operator, body: { lineId, title: "Disk full", data: { host: "db1" } } });
    expect(t.status).toBe(201);
    expect(t.body).toMatchObject({ status: "draft", outcome: null, lineId, data: { host: "db1" }, currentStep: null });
    const url = `/api/v1/factories/${s.ws}/orders/${t.body.id}`;
    expect((await api.patch(url, { key: s.keys.operator, body: { title: "Disk full on db1", data: [1, 2] } })).body).toMatchObject({
      title: "Disk full on db1",
      data: [1, 2],
    });
    expect((await api.post(`${url}/transitions`, { key: s.keys.operator, body: { action: "open" } })).body.status).toBe("open");
    expect((await api.post(`${url}/transitions`, { key: s.keys.operator, body: { action: "open" } })).status).toBe(409);
    expect((await api.post(`${url}/transitions`, { key: s.keys.operator, body: { action: "retry" } })).status).toBe(409);
    const c = await api.post(`${url}/comments`, { key: s.keys.operator, body: { body: "Cleaned /var/log" } });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ kind: "comment", message: "Cleaned /var/log" });
    const closed = await api.post(`${url}/transitions`, { key: s.keys.operator, body: { action: "close", outcome: "completed" } });
    expect(closed.body).toMatchObject({ status: "closed", outcome: "completed" });
    expect(closed.body.closedAt).not.toBeNull();
    expect((await api.patch(url, { key: s.keys.operator, body: { title: "late" } })).status).toBe(409);
    expect((await api.post(`${url}/transitions`, { key: s.keys.operator, body: { action: "close", outcome: "failed" } })).status).toBe(422);
    const act = await api.get(`${url}/activity`, { key: s.keys.viewer });
    expect(act.body.data.map((a: { kind: string }) => a.kind)).toEqual(["created", "edited", "opened", "comment", "closed"]);
    // The actor is named by key prefix; the key itself never appears.
    expect(JSON.stringify(act.body)).toContain(s.keys.operator.split("_").slice(0, 2).join("_"));
    // The secret is base64url and may itself contain "_": everything after the prefix.
    expect(JSON.stringify(act.body)).not.toContain(s.keys.operator.split("_").slice(2).join("_"));
    const p1 = await api.get(`${url}/activity?limit=2`, { key: s.keys.viewer });
    const p2 = await api.get(`${url}/activity?limit=2&cursor=${p1.body.nextCursor}`, { key: s.keys.viewer });
    expect(p2.body.data.map((a: { kind: string }) => a.kind)).toEqual(["opened", "comment"]);
  });

  it("follows a timeline with `after`: the last page's nextCursor is null, the last entry's id still polls what is new", async () => {
    const t = await api.post(`/api/v1/factories/${s.ws}/orders`, { key: s.keys.operator, body: { lineId, title: "Followed" } });
    const url = `/api/v1/factories/${s.ws}/orders/${t.body.id}`;
    const first = await api.get(`${url}/activity?limit=200`, { key: s.keys.viewer });
    expect(first.body).toMatchObject({ data: [{ kind: "created" }], nextCursor: null });
    const last = first.body.data.at(-1).id;
    expect((await api.get(`${url}/activity?after=${last}`, { key: s.keys.viewer })).body).toEqual({ data: [], nextCursor: null });
    await api.post(`${url}/comments`, { key: s.keys.operator, body: { body: "one" } });
    await api.post(`${url}/comments`, { key: s.keys.operator, body: { body: "two" } });
    const next = await api.get(`${url}/activity?after=${last}&limit=1`, { key: s.keys.viewer });
    expect(next.body.data.map((a: { message: string }) => a.message)).toEqual(["one"]);
    expect(next.body.nextCursor).not.toBeNull();
    expect(
      (await api.get(`${url}/activity?after=${next.body.data[0].id}`, { key: s.keys.viewer })).body.data.map((a: { message: string }) => a.message),
    ).toEqual(["two"]);
    // Another task's entry, an unknown id, or both `after` and `cursor`: 422 naming the parameter.
    const other = await api.post(`/api/v1/factories/${s.ws}/orders`, { key: s.keys.operator, body: { lineId, title: "Other" } });
    const foreign = (await api.get(`/api/v1/factories/${s.ws}/orders/${other.body.id}/activity`, { key: s.keys.viewer })).body.data[0].id;
    for (const q of [`after=${foreign}`, "after=act_nope", `after=${last}&cursor=${next.body.nextCursor}`]) {
      const res = await api.get(`${url}/activity?${q}`, { key: s.keys.viewer });
      expect(res.status, q).toBe(422);
      expect(res.body.errors[0].path, q).toBe("query.after");
    }
  });

  it("runs a task along a line: open starts step 1 and the timeline shows the step's run", async () => {
    const appId = await insertAutomation(deps, s.ws, "Instant");
    const line = (await api.post(`/api/v1/factories/${s.ws}/lines`, { key: s.keys.editor, body: { name: "Auto", steps: [{ name: "one", appId }] } })).body;
    const t = await api.post(`/api/v1/factories/${s.ws}/orders`, { key: s.keys.operator, body: { lineId: line.id, title: "go", status: "open" } });
    expect(t.status).toBe(201);
    expect(t.body.currentStep).toBe(0);
    const act = await api.get(`/api/v1/factories/${s.ws}/orders/${t.body.id}/activity`, { key: s.keys.viewer });
    const started = act.body.data.find((a: { kind: string }) => a.kind === "step_started");
    expect(started.runId).toMatch(/^run_/);
  });

  it("lists newest first with filters and a cursor that is stable under inserts", async () => {
    const ws = (await api.post("/api/v1/factories", { key: s.keys.admin, body: { name: "Paging" } })).body.id;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await api.post(`/api/v1/factories/${ws}/orders`, { key: s.keys.operator, body: { title: `t${i}` } })).body.id);
    const p1 = await api.get(`/api/v1/factories/${ws}/orders?limit=2`, { key: s.keys.viewer });
    expect(p1.body.data.map((o: { id: string }) => o.id)).toEqual([ids[4], ids[3]]);
    for (let i = 0; i < 3; i++) await api.post(`/api/v1/factories/${ws}/orders`, { key: s.keys.operator, body: { title: `late${i}` } });
    const seen = [...p1.body.data.map((o: { id: string }) => o.id)];
    let cursor = p1.body.nextCursor;
    while (cursor) {
      const p = await api.get(`/api/v1/factories/${ws}/orders?limit=2&cursor=${cursor}`, { key: s.keys.viewer });
      seen.push(...p.body.data.map((o: { id: string }) => o.id));
      cursor = p.body.nextCursor;
    }
    expect(seen).toEqual([ids[4], ids[3], ids[2], ids[1], ids[0]]);
    await api.post(`/api/v1/factories/${ws}/orders/${ids[0]}/transitions`, { key: s.keys.operator, body: { action: "open" } });
    expect((await api.get(`/api/v1/factories/${ws}/orders?status=open`, { key: s.keys.viewer })).body.data.map((o: { id: string }) => o.id)).toEqual([ids[0]]);
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect((await api.get(`/api/v1/factories/${ws}/orders?createdFrom=${future}`, { key: s.keys.viewer })).body.data).toEqual([]);
    expect((await api.get(`/api/v1/factories/${ws}/orders?createdTo=${future}&limit=200`, { key: s.keys.viewer })).body.data).toHaveLength(8);
    expect((await api.get(`/api/v1/factories/${ws}/orders?createdFrom=yesterday`, { key: s.keys.viewer })).status).toBe(422);
    expect((await api.get(`/api/v1/factories/${ws}/orders?lineId=lin_none`, { key: s.keys.viewer })).body.data).toEqual([]);
  });

  it("replays a task creation with the same Idempotency-Key", async () => {
    const headers = { "idempotency-key": "order-1" };
    const a = await api.post(`/api/v1/factories/${s.ws}/orders`, { key: s.keys.operator, headers, body: { title: "once" } });
    const b = await api.post(`/api/v1/factories/${s.ws}/orders`, { key: s.keys.operator, headers, body: { title: "once" } });
    expect(b.body.id).toBe(a.body.id);
    expect((await api.post(`/api/v1/factories/${s.ws}/orders`, { key: s.keys.operator, headers, body: { title: "twice" } })).status).toBe(422);
  });
});

describe("intakes", () => {
  it("creates a webhook intake whose secret is shown once; a delivery creates a task", async () => {
    const lineId = (await api.post(`/api/v1/factories/${s.ws}/lines`, { key: s.keys.editor, body: { name: "Inbox" } })).body.id;
    const created = await api.post(`/api/v1/factories/${s.ws}/intakes`, { key: s.keys.editor, body: { name: "Alerts", lineId, open: false } });
    expect(created.status).toBe(201);
    expect(created.body.url).toMatch(/\/hooks\/[A-Za-z0-9_-]+$/);
    expect(created.body.secret.length).toBeGreaterThan(20);
    const list = await api.get(`/api/v1/factories/${s.ws}/intakes`, { key: s.keys.viewer });
    const listed = list.body.data.find((i: { id: string }) => i.id === created.body.id);
    expect(listed).toMatchObject({ kind: "webhook", lineId, eventCount: 0 });
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);
    const row = (await deps.store.intakes.get(s.ws, created.body.id))!;
    expect(row.secretEnc).not.toContain(created.body.secret);
    const order = await deps.store.tx((st) => createTaskFromIntake(deps, st, row, { title: "From webhook", data: { a: 1 } }));
    expect(order).toMatchObject({ title: "From webhook", data: { a: 1 }, status: "draft", intakeId: row.id });
    const fallback = await deps.store.tx((st) => createTaskFromIntake(deps, st, row, [1, 2]));
    expect(fallback.data).toEqual([1, 2]);
    expect(fallback.title).toContain("Alerts");
    expect((await api.delete(`/api/v1/factories/${s.ws}/intakes/${created.body.id}`, { key: s.keys.editor })).status).toBe(204);
    expect((await api.delete(`/api/v1/factories/${s.ws}/intakes/${created.body.id}`, { key: s.keys.editor })).status).toBe(404);
  });
});

describe("intake deliveries (served app only: /hooks is the custom server's)", () => {
  it.runIf(OVER_HTTP)("a JSON POST with the secret creates an open task on the line; a wrong secret is refused", async () => {
    const lineId = (await api.post(`/api/v1/factories/${s.ws}/lines`, { key: s.keys.editor, body: { name: "Hooked" } })).body.id;
    const intake = (await api.post(`/api/v1/factories/${s.ws}/intakes`, { key: s.keys.editor, body: { name: "Hook", lineId } })).body;
    const bad = await fetch(intake.url, { method: "POST", headers: { authorization: "Bearer wrong", "content-type": "application/json" }, body: "{}" });
    expect(bad.status).toBe(401);
    const ok = await fetch(intake.url, {
      method: "POST",
      headers: { authorization: `Bearer ${intake.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Über-alert ✓", data: { sev: 1 } }),
    });
    expect(ok.status).toBe(202);
    const { taskId } = (await ok.json()) as { taskId: string };
    const task = await api.get(`/api/v1/factories/${s.ws}/orders/${taskId}`, { key: s.keys.viewer });
    expect(task.body).toMatchObject({ title: "Über-alert ✓", data: { sev: 1 }, status: "open", lineId, intakeId: intake.id });
    const listed = (await api.get(`/api/v1/factories/${s.ws}/intakes`, { key: s.keys.viewer })).body.data.find((i: { id: string }) => i.id === intake.id);
    expect(listed.eventCount).toBe(1);
    expect(listed.lastEventAt).not.toBeNull();
    // The refused delivery is counted on the intake, with what the sender was told (written just after the 401).
    const intakeNow = async () =>
      (await api.get(`/api/v1/factories/${s.ws}/intakes`, { key: s.keys.viewer })).body.data.find((i: { id: string }) => i.id === intake.id);
    await expect.poll(async () => (await intakeNow()).refusedCount).toBe(1);
    expect((await intakeNow()).lastRefused).toMatchObject({ status: 401, code: "unauthorized" });
  });
});

describe("usage", () => {
  it("reports tasks created and closed, by day or hour, within 90 days", async () => {
    const res = await api.get(`/api/v1/factories/${s.ws}/usage?granularity=hour`, { key: s.keys.viewer });
    expect(res.status).toBe(200);
    expect(res.body.totals.tasksCreated).toBeGreaterThan(0);
    expect(res.body.totals.tasksClosed).toBeGreaterThan(0);
    expect(res.body.buckets[0].start).toMatch(/T\d\d:00:00.000Z$/);
    const day = await api.get(`/api/v1/factories/${s.ws}/usage`, { key: s.keys.viewer });
    expect(day.body.buckets[0].start).toMatch(/T00:00:00.000Z$/);
    const tooLong = await api.get(`/api/v1/factories/${s.ws}/usage?from=2026-01-01T00:00:00Z&to=2026-06-01T00:00:00Z`, { key: s.keys.viewer });
    expect(tooLong.status).toBe(422);
    expect((await api.get(`/api/v1/factories/${s.ws}/usage?granularity=week`, { key: s.keys.viewer })).status).toBe(422);
  });
});

describe("catalog and OpenAPI", () => {
  it("serves the catalog", async () => {
    const res = await api.get("/api/v1/catalog", { key: s.keys.viewer });
    expect(res.body.integrations.map((i: { key: string }) => i.key)).toContain("core");
  });
  it("serves a valid OpenAPI 3.1 document without a key, and a reference page", async () => {
    const { validate } = await import("@readme/openapi-parser");
    const res = await api.get("/api/v1/openapi.json", { headers: { "x-request-id": "spec-1" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("spec-1");
    expect(res.body.openapi).toBe("3.1.0");
    expect(Object.keys(res.body.paths).length).toBeGreaterThanOrEqual(20);
    const result = await validate(structuredClone(res.body));
    expect(result.valid).toBe(true);
    // Only named schemas are components (a generated client gets no `__schemaN` types), and every
    // header a success carries is listed.
    expect(Object.keys(res.body.components.schemas).filter((n) => n.startsWith("__"))).toEqual([]);
    expect(Object.keys(res.body.paths["/factories"].get.responses["200"].headers).sort()).toEqual(
      ["RateLimit-Limit", "RateLimit-Policy", "RateLimit-Remaining", "RateLimit-Reset", "X-Request-Id"].sort(),
    );
    // Every object of every request body is closed (additionalProperties: false), as the strict bodies are.
    const open: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (!node || typeof node !== "object") return;
      const o = node as Record<string, unknown>;
      if (o.type === "object" && o.properties && o.additionalProperties !== false) open.push(at);
      for (const [k, v] of Object.entries(o)) walk(v, `${at}/${k}`);
    };
    for (const [p, item] of Object.entries<Record<string, { requestBody?: { content: Record<string, { schema: { $ref?: string } }> } }>>(res.body.paths))
      for (const [m, op] of Object.entries(item)) {
        const schema = op.requestBody?.content["application/json"]?.schema;
        if (schema) walk(schema.$ref ? res.body.components.schemas[schema.$ref.split("/").pop()!] : schema, `${m} ${p}`);
      }
    expect(open).toEqual([]);
    // Every answer that carries an ETag says so (GET, and the PUT and PATCH that save a new version).
    for (const m of ["get", "put", "patch"])
      expect(res.body.paths["/factories/{factoryId}/apps/{appId}"][m].responses["200"].headers, m).toHaveProperty("ETag");
    const docs = await api.get("/api/v1/docs");
    expect(docs.status).toBe(200);
    expect(docs.headers.get("content-type")).toContain("text/html");
    expect(docs.text).toContain("/api/v1/openapi.json");
    // The viewer's hosted extras (Ask AI, Generate MCP, the toolbar with Deploy) are switched off.
    const config = JSON.parse(/createApiReference\('#app', (\{[\s\S]*?\})\)/.exec(docs.text)![1]!);
    expect(config).toMatchObject({ agent: { disabled: true }, mcp: { disabled: true }, showDeveloperTools: "never" });
    // The introduction maps the API's words to the app's.
    expect(res.body.info.description).toMatch(/\| factory \(`\/factories`\) \| workspace \|/);
    expect(res.body.info.description).toMatch(/\| app .*\| automation \|/);
    expect(res.body.info.description).toMatch(/\| order .*\| task \|/);
  });

  it("answers JSON 404s for unknown paths and 405 with Allow for wrong methods", async () => {
    for (const p of ["/api/v1", "/api/v1/nope", "/api/v1/factories/x/nope/deeper"]) {
      const res = await api.get(p, { key: s.keys.viewer });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
    }
    const res = await api.delete(`/api/v1/factories/${s.ws}/orders`, { key: s.keys.admin });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, POST");
    expect(res.body.code).toBe("method_not_allowed");
  });

  it("refuses non-JSON (415), malformed JSON (400) and oversize bodies (413)", async () => {
    const url = `/api/v1/factories/${s.ws}/orders`;
    expect((await api.post(url, { key: s.keys.operator, raw: "title=x", headers: { "content-type": "text/plain" } })).status).toBe(415);
    expect((await api.post(url, { key: s.keys.operator, raw: "{oops", headers: { "content-type": "application/json" } })).status).toBe(400);
    const big = await api.post(url, { key: s.keys.operator, body: { title: "big", data: "x".repeat(1100 * 1024) } });
    expect(big.status).toBe(413);
  });
});

describe("isolation and roles", () => {
  it("hides workspaces outside a key's list with 404", async () => {
    const k = s.keys.limitedAdmin;
    expect((await api.get("/api/v1/factories", { key: k })).body.data.map((w: { id: string }) => w.id)).toEqual([s.ws]);
    for (const p of ["", "/lines", "/orders", "/intakes", "/usage"]) {
      const res = await api.get(`/api/v1/factories/${s.other}${p}`, { key: k });
      expect(res.status, p).toBe(404);
    }
    expect((await api.post(`/api/v1/factories/${s.other}/lines`, { key: k, body: { name: "x" } })).status).toBe(404);
    expect((await api.delete(`/api/v1/factories/${s.other}`, { key: k })).status).toBe(404);
    const order = (await api.post(`/api/v1/factories/${s.other}/orders`, { key: s.keys.operator, body: { title: "theirs" } })).body;
    expect((await api.get(`/api/v1/factories/${s.ws}/orders/${order.id}`, { key: s.keys.admin })).status).toBe(404);
  });

  const ROOT = path.resolve(import.meta.dirname, "../..");
  it("docs/api.md's endpoint table lists every operation with the role the door enforces", () => {
    const md = fs.readFileSync(path.join(ROOT, "docs/api.md"), "utf8");
    const rows = [...md.matchAll(/^\| `(GET|POST|PUT|PATCH|DELETE) \/api\/v1(\S+)` \| .+ \| (viewer|operator|editor|admin) \|$/gm)].map(
      (m) => `${m[1]} ${m[2]} ${m[3]}`,
    );
    expect(rows.sort()).toEqual(ALL_OPERATIONS.map((op) => `${op.method} ${op.path} ${op.role}`).sort());
  });
  const routed = ALL_OPERATIONS.filter((op) => fs.existsSync(path.join(ROOT, "app/api/v1", op.path.replace(/\{(\w+)\}/g, "[$1]"), "route.ts")));
  it("answers a hidden workspace exactly like a missing one on every workspace endpoint (404, never 403)", async () => {
    const call = (op: (typeof routed)[number], factoryId: string) =>
      api.request(op.method, "/api/v1" + op.path.replace(/\{(\w+)\}/g, (_, n) => (n === "factoryId" ? factoryId : n === "version" ? "1" : `${n}_missing`)), {
        key: s.keys.limitedAdmin,
        body: op.body ? {} : undefined,
      });
    for (const op of routed.filter((o) => o.path.includes("{factoryId}"))) {
      const hidden = await call(op, s.other);
      const missing = await call(op, "ws_doesnotexist");
      expect(hidden.status, `${op.method} ${op.path}`).toBe(missing.status);
      expect([404, 422], `${op.method} ${op.path}`).toContain(hidden.status);
      expect(hidden.body.detail.replace(s.other, "ID"), `${op.method} ${op.path}`).toBe(missing.body.detail.replace("ws_doesnotexist", "ID"));
    }
  });

  for (const role of ["viewer", "operator", "editor", "admin"] as const) {
    it(`enforces the ${role} role on every endpoint`, async () => {
      for (const op of routed) {
        const url = "/api/v1" + op.path.replace(/\{(\w+)\}/g, (_, n) => (n === "version" ? "1" : `${n}_missing`));
        const res = await api.request(op.method, url, { key: s.keys[role], body: op.body ? {} : undefined });
        if (roleRank(role) < roleRank(op.role)) expect(res.status, `${role} ${op.method} ${op.path}`).toBe(403);
        else expect([401, 403], `${role} ${op.method} ${op.path}`).not.toContain(res.status);
      }
    });
  }
});
