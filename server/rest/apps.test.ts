/** Automations, versions and runs through /api/v1 (responses checked against the OpenAPI document). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDeps } from "../testing";
import { OVER_HTTP, startRestTarget, type RestTarget } from "./testing/target";
import type { RestClient } from "./testing/rest-client";
import { seedRest, type Seed } from "./testing/seed";

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

const doc = (name: string, condition: unknown = "{{ $trigger.data.go }}") => ({
  name,
  description: "from the API tests",
  enabled: true,
  graph: {
    nodes: [
      { id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
      { id: "n2", name: "gate", key: "core.filter", config: { condition }, position: { x: 280, y: 0 } },
    ],
    edges: [{ from: "n1", to: "n2" }],
  },
});

describe("apps", () => {
  it("creates, lists, reads with an ETag, replaces with If-Match (412 on a stale one), patches and deletes", async () => {
    const base = `/api/v1/factories/${s.ws}/apps`;
    const created = await api.post(base, { key: s.keys.editor, body: doc("Gate") });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Gate", version: 1, enabled: true });
    const id = created.body.id;
    const got = await api.get(`${base}/${id}`, { key: s.keys.viewer });
    expect(got.headers.get("etag")).toBe('"v1"');
    const replaced = await api.put(`${base}/${id}`, { key: s.keys.editor, body: doc("Gate 2"), headers: { "if-match": '"v1"' } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.version).toBe(2);
    expect(replaced.headers.get("etag")).toBe('"v2"');
    const stale = await api.put(`${base}/${id}`, { key: s.keys.editor, body: doc("Lost update"), headers: { "if-match": '"v1"' } });
    expect(stale.status).toBe(412);
    expect(stale.body.code).toBe("precondition_failed");
    expect((await api.put(`${base}/${id}`, { key: s.keys.editor, body: doc("x"), headers: { "if-match": "garbage" } })).status).toBe(412);
    expect((await api.get(`${base}/${id}`, { key: s.keys.viewer })).body.name).toBe("Gate 2");
    const patched = await api.patch(`${base}/${id}`, { key: s.keys.editor, body: { enabled: false, concurrency: 2 } });
    expect(patched.body).toMatchObject({ enabled: false, concurrency: 2 });
    const list = await api.get(`${base}?enabled=false&search=gate`, { key: s.keys.viewer });
    expect(list.body.data.map((a: { id: string }) => a.id)).toContain(id);
    expect((await api.get(`${base}?enabled=true&search=gate`, { key: s.keys.viewer })).body.data.map((a: { id: string }) => a.id)).not.toContain(id);
    const versions = await api.get(`${base}/${id}/versions?limit=1`, { key: s.keys.viewer });
    expect(versions.body.data[0].version).toBeGreaterThanOrEqual(2);
    expect(versions.body.nextCursor).not.toBeNull();
    const v1 = await api.get(`${base}/${id}/versions/1`, { key: s.keys.viewer });
    expect(v1.body).toMatchObject({ version: 1, name: "Gate" });
    expect((await api.get(`${base}/${id}/versions/99`, { key: s.keys.viewer })).status).toBe(404);
    expect((await api.delete(`${base}/${id}`, { key: s.keys.editor })).status).toBe(204);
    expect((await api.get(`${base}/${id}`, { key: s.keys.viewer })).status).toBe(404);
  });

  it("returns every document problem at once with node and field paths", async () => {
    const bad = {
      name: "Broken",
      enabled: true,
      graph: {
        nodes: [
          { id: "n1", name: "start", key: "core.manual", config: {} },
          { id: "n2", name: "nope", key: "core.doesNotExist", config: {} },
          { id: "n3", name: "start", key: "core.filter", config: {} },
        ],
        edges: [{ from: "n1", to: "n9" }],
      },
    };
    const res = await api.post(`/api/v1/factories/${s.ws}/apps`, { key: s.keys.editor, body: bad });
    expect(res.status).toBe(422);
    expect(res.body.errors.length).toBeGreaterThanOrEqual(3);
    for (const e of res.body.errors) expect(e.path).toMatch(/^graph\./);
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: "graph.nodes.1.key", nodeId: "n2" })]));
    // Shape problems (schema level) are also listed together.
    const shape = await api.post(`/api/v1/factories/${s.ws}/apps`, {
      key: s.keys.editor,
      body: { name: "", graph: { nodes: [{ id: "a", name: "bad name!", key: "core.manual" }, { name: "x" }] } },
    });
    expect(shape.status).toBe(422);
    expect(shape.body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(["name", "graph.nodes.0.name", "graph.nodes.1.id"]));
    expect(shape.body.errors).toEqual(expect.arrayContaining([{ path: "graph.nodes.1.id", message: "Required" }]));
    // Strict at every level of the document, the nested parts included (they were dropped silently).
    const nested = await api.post(`/api/v1/factories/${s.ws}/apps`, {
      key: s.keys.editor,
      body: {
        name: "Nested",
        graph: {
          nodes: [
            {
              id: "n1",
              name: "start",
              key: "core.manual",
              config: {},
              labels: { x: { value: "1", label: "One", colour: "red" } },
              pinned: { output: { type: "core.manual", timestamp: "2026-01-01T00:00:00Z", Data: { a: 1 } }, note: "x" },
            },
          ],
          notes: [{ id: "t1", text: "hi", position: { x: 0, y: 0, z: 1 }, size: { width: 1, height: 1, depth: 1 } }],
        },
      },
    });
    expect(nested.status).toBe(422);
    expect(nested.body.errors.map((e: { path: string; message: string }) => `${e.path}: ${e.message}`).sort()).toEqual([
      "graph.nodes.0.labels.x.colour: Unknown field: colour",
      "graph.nodes.0.pinned.note: Unknown field: note",
      "graph.nodes.0.pinned.output.Data: Unknown field: Data",
      "graph.notes.0.position.z: Unknown field: z",
      "graph.notes.0.size.depth: Unknown field: depth",
    ]);
    // docs/api.md's example: a missing config field is "Required" (not zod's "expected string, received undefined"), and the detail names it.
    const missing = await api.post(`/api/v1/factories/${s.ws}/apps`, {
      key: s.keys.editor,
      body: {
        name: "Missing URL",
        enabled: true,
        graph: {
          nodes: [
            { id: "n1", name: "start", key: "core.manual", config: {} },
            { id: "n2", name: "call", key: "core.http", config: { method: "GET" } },
          ],
          edges: [{ from: "n1", to: "n2" }],
        },
      },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([{ path: "graph.nodes.1.config.url", nodeId: "n2", severity: "error", message: "Required" }]);
    expect(missing.body.detail).toContain("has 1: graph.nodes.1.config.url: Required.");
    // A setting the component does not have is never read: an error names it (it saved silently before),
    // in the words `conveyor validate` uses for the same mistake in a file.
    const strayDoc = {
      name: "Stray setting",
      enabled: true,
      graph: {
        nodes: [
          { id: "n1", name: "start", key: "core.manual", config: {} },
          { id: "n2", name: "call", key: "core.http", config: { method: "GET", url: "http://127.0.0.1:9/x", timeoutMS: 5 } },
        ],
        edges: [{ from: "n1", to: "n2" }],
      },
    };
    const strayProblem = { path: "graph.nodes.1.config.timeoutMS", nodeId: "n2", severity: "error", message: 'Unknown input "timeoutMS" for core.http' };
    const stray = await api.post(`/api/v1/factories/${s.ws}/apps`, { key: s.keys.editor, body: strayDoc });
    expect(stray.status).toBe(422);
    expect(stray.body.errors).toEqual([strayProblem]);
    const strayDraft = await api.post(`/api/v1/factories/${s.ws}/apps`, { key: s.keys.editor, body: { ...strayDoc, enabled: false } });
    expect(strayDraft.status).toBe(201);
    expect(strayDraft.body.problems).toEqual([strayProblem]);
  });

  it("saves a disabled automation as a draft with its problems; enabling or running it is a 422 listing them", async () => {
    const base = `/api/v1/factories/${s.ws}/apps`;
    const draftDoc = { ...doc("Draft"), enabled: false };
    draftDoc.graph.nodes.push({
      id: "n3",
      name: "after",
      key: "core.filter",
      config: { condition: "{{ $steps.gaet.data.passed }}" },
      position: { x: 560, y: 0 },
    });
    draftDoc.graph.edges.push({ from: "n2", to: "n3" });
    const created = await api.post(base, { key: s.keys.editor, body: draftDoc });
    expect(created.status).toBe(201);
    expect(created.body.enabled).toBe(false);
    expect(created.body.problems).toEqual(
      expect.arrayContaining([
        { path: "graph.nodes.2.config.condition", nodeId: "n3", severity: "error", message: 'No step is named "gaet". Did you mean $steps.gate?' },
      ]),
    );
    const enable = await api.patch(`${base}/${created.body.id}`, { key: s.keys.editor, body: { enabled: true } });
    expect(enable.status).toBe(422);
    expect(enable.headers.get("content-type")).toMatch(/application\/problem\+json/);
    expect(enable.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ nodeId: "n3", path: "graph.nodes.2.config.condition" })]));
    const run = await api.post(`${base}/${created.body.id}/runs`, { key: s.keys.operator, body: {} });
    expect(run.status).toBe(422);
    // Replacing it with enabled: true and the same problems is refused; fixed, it saves enabled.
    const stillBroken = await api.put(`${base}/${created.body.id}`, { key: s.keys.editor, body: { ...draftDoc, enabled: true } });
    expect(stillBroken.status).toBe(422);
    expect(stillBroken.body.detail).toMatch(/enabled: false/);
    const fixedDoc = JSON.parse(JSON.stringify(draftDoc).replaceAll("gaet", "gate"));
    const fixed = await api.put(`${base}/${created.body.id}`, { key: s.keys.editor, body: { ...fixedDoc, enabled: true } });
    expect(fixed.status).toBe(200);
    expect(fixed.body).toMatchObject({ enabled: true, problems: [] });
    // A missing error handler named in a PATCH is a 422 on the field, as in a document (it was a 404, read as "no such automation").
    // PATCH honours If-Match like PUT: a stale ETag is refused and changes nothing.
    const etag = (await api.get(`${base}/${created.body.id}`, { key: s.keys.viewer })).headers.get("etag")!;
    const renamed = await api.patch(`${base}/${created.body.id}`, { key: s.keys.editor, body: { name: "Draft 2" }, headers: { "if-match": etag } });
    expect(renamed.status).toBe(200);
    const late = await api.patch(`${base}/${created.body.id}`, { key: s.keys.editor, body: { name: "Draft 3" }, headers: { "if-match": etag } });
    expect(late.status).toBe(412);
    expect((await api.get(`${base}/${created.body.id}`, { key: s.keys.viewer })).body.name).toBe("Draft 2");
    const handler = await api.patch(`${base}/${created.body.id}`, { key: s.keys.editor, body: { errorHandlerId: "aut_nope" } });
    expect(handler.status).toBe(422);
    expect(handler.body.errors).toEqual([{ path: "errorHandlerId", message: "Automation aut_nope does not exist in this workspace" }]);
  });

  it("replays app creation with the same Idempotency-Key", async () => {
    const headers = { "idempotency-key": "app-once" };
    const a = await api.post(`/api/v1/factories/${s.ws}/apps`, { key: s.keys.editor, headers, body: doc("Once") });
    const b = await api.post(`/api/v1/factories/${s.ws}/apps`, { key: s.keys.editor, headers, body: doc("Once") });
    expect(b.body.id).toBe(a.body.id);
  });
});

describe("runs", () => {
  it("starts a run with a payload, lists and reads it, cancels it; retry is refused unless failed", async () => {
    const app = (await api.post(`/api/v1/factories/${s.ws}/apps`, { key: s.keys.editor, body: doc("Runner") })).body;
    const base = `/api/v1/factories/${s.ws}/apps/${app.id}/runs`;
    const started = await api.post(base, { key: s.keys.operator, body: { payload: { go: true } }, headers: { "idempotency-key": "run-1" } });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ appId: app.id, version: 1 });
    const again = await api.post(base, { key: s.keys.operator, body: { payload: { go: true } }, headers: { "idempotency-key": "run-1" } });
    expect(again.body.id).toBe(started.body.id);
    // A payload that is not an object said "expected record" (the validator's word, not JSON's).
    const notObject = await api.post(base, { key: s.keys.operator, body: { payload: [1] } });
    expect(notObject.body.errors).toEqual([{ path: "payload", message: "Invalid input: expected object, received array" }]);
    const noBody = await api.post(base, { key: s.keys.operator });
    expect(noBody.status).toBe(202);
    const list = await api.get(`${base}?limit=1`, { key: s.keys.viewer });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.nextCursor).not.toBeNull();
    const run = await api.get(`${base}/${started.body.id}`, { key: s.keys.viewer });
    expect(run.body.steps[0]).toMatchObject({ nodeId: "n1" });
    expect(run.body.event.data).toEqual({ go: true });
    const other = (await api.post(`/api/v1/factories/${s.ws}/apps`, { key: s.keys.editor, body: doc("Other") })).body;
    expect((await api.get(`/api/v1/factories/${s.ws}/apps/${other.id}/runs/${started.body.id}`, { key: s.keys.viewer })).status).toBe(404);
    const cancelled = await api.post(`${base}/${noBody.body.id}/cancel`, { key: s.keys.operator });
    if (cancelled.status === 200) {
      expect(cancelled.body.status).toBe("cancelled");
      // The same run shape as every other answer: the trigger keeps its node name.
      expect(cancelled.body.trigger).toEqual(noBody.body.trigger);
      expect(cancelled.body.trigger.name).toBe("start");
      expect((await api.post(`${base}/${noBody.body.id}/cancel`, { key: s.keys.operator })).status).toBe(409);
    } else expect(cancelled.status).toBe(409); // the runner finished it first
    const fresh = (await api.post(base, { key: s.keys.operator, body: { payload: { go: true } } })).body;
    const r = await api.post(`${base}/${fresh.id}/retry`, { key: s.keys.operator });
    expect([202, 409]).toContain(r.status);
    expect((await api.get(`${base}?status=bogus`, { key: s.keys.viewer })).status).toBe(422);
    expect((await api.post(`/api/v1/factories/${s.ws}/apps/aut_missing/runs`, { key: s.keys.operator, body: {} })).status).toBe(404);
    // Replaying an event that does not exist names the body field (it was a 404 like a missing automation).
    const replay = await api.post(base, { key: s.keys.operator, body: { eventId: "evt_nope" } });
    expect(replay.status).toBe(422);
    expect(replay.body.errors).toEqual([{ path: "eventId", message: "Unknown event" }]);
    expect((await api.post(base, { key: s.keys.operator, body: { eventId: started.body.trigger.eventId } })).status).toBe(202);
    expect((await api.post(base, { key: s.keys.viewer, body: {} })).status).toBe(403);
  });
});

async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("with the runner (served app only)", () => {
  it.runIf(OVER_HTTP)("a started run succeeds and shows in usage", async () => {
    const app = (await api.post(`/api/v1/factories/${s.ws}/apps`, { key: s.keys.editor, body: doc("Usage") })).body;
    const base = `/api/v1/factories/${s.ws}/apps/${app.id}/runs`;
    const run = (await api.post(base, { key: s.keys.operator, body: { payload: { go: true } } })).body;
    const done = await eventually(
      () => api.get(`${base}/${run.id}`, { key: s.keys.viewer }),
      (r) => r.body.status === "succeeded",
    );
    expect(done.body.status).toBe("succeeded");
    expect(done.body.steps.map((st: { nodeId: string; status: string }) => [st.nodeId, st.status])).toEqual([
      ["n1", "succeeded"],
      ["n2", "succeeded"],
    ]);
    const usage = await eventually(
      () => api.get(`/api/v1/factories/${s.ws}/usage?granularity=hour`, { key: s.keys.viewer }),
      (r) => (r.body.totals.runs.succeeded ?? 0) >= 1,
    );
    expect(usage.body.totals.runs.succeeded).toBeGreaterThanOrEqual(1);
    expect(usage.body.totals.steps.succeeded).toBeGreaterThanOrEqual(1);
    expect(usage.body.totals.eventsReceived).toBeGreaterThanOrEqual(1);
  });

  it.runIf(OVER_HTTP)("a task moves along a two-step line and closes completed; a failing step closes it failed and retry re-runs it", async () => {
    const a1 = (await api.post(`/api/v1/factories/${s.ws}/apps`, { key: s.keys.editor, body: doc("Step one", true) })).body;
    const a2 = (await api.post(`/api/v1/factories/${s.ws}/apps`, { key: s.keys.editor, body: doc("Step two", true) })).body;
    const line = (
      await api.post(`/api/v1/factories/${s.ws}/lines`, {
        key: s.keys.editor,
        body: {
          name: "Two steps",
          steps: [
            { name: "one", appId: a1.id },
            { name: "two", appId: a2.id },
          ],
        },
      })
    ).body;
    const task = (await api.post(`/api/v1/factories/${s.ws}/orders`, { key: s.keys.operator, body: { lineId: line.id, title: "walk", status: "open" } })).body;
    const url = `/api/v1/factories/${s.ws}/orders/${task.id}`;
    const closed = await eventually(
      () => api.get(url, { key: s.keys.viewer }),
      (r) => r.body.status === "closed",
    );
    expect(closed.body).toMatchObject({ status: "closed", outcome: "completed" });
    const kinds = (await api.get(`${url}/activity`, { key: s.keys.viewer })).body.data.map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(["created", "opened", "step_started", "step_finished", "step_started", "step_finished", "closed"]);

    // A step whose automation fails (an expression calling an unknown function) fails the task;
    // after fixing the line, retry re-runs that step. The automation cannot be deleted while a line uses it.
    const broken = (await api.post(`/api/v1/factories/${s.ws}/apps`, { key: s.keys.editor, body: doc("Broken", "{{ $noSuchFunction() }}") })).body;
    const fragile = (
      await api.post(`/api/v1/factories/${s.ws}/lines`, {
        key: s.keys.editor,
        body: {
          name: "Fragile",
          steps: [
            { name: "one", appId: a1.id },
            { name: "two", appId: broken.id },
          ],
        },
      })
    ).body;
    const del = await api.delete(`/api/v1/factories/${s.ws}/apps/${broken.id}`, { key: s.keys.editor });
    expect(del.status).toBe(409);
    expect(del.body.detail).toContain('"Fragile"');
    const t2 = (await api.post(`/api/v1/factories/${s.ws}/orders`, { key: s.keys.operator, body: { lineId: fragile.id, title: "breaks", status: "open" } }))
      .body;
    const failed = await eventually(
      () => api.get(`/api/v1/factories/${s.ws}/orders/${t2.id}`, { key: s.keys.viewer }),
      (r) => r.body.status === "closed",
    );
    expect(failed.body).toMatchObject({ outcome: "failed", currentStep: 1 });
    await api.patch(`/api/v1/factories/${s.ws}/lines/${fragile.id}`, {
      key: s.keys.editor,
      body: {
        steps: [
          { name: "one", appId: a1.id },
          { name: "two", appId: a2.id },
        ],
      },
    });
    const retried = await api.post(`/api/v1/factories/${s.ws}/orders/${t2.id}/transitions`, { key: s.keys.operator, body: { action: "retry" } });
    expect(retried.status).toBe(200);
    const after = await eventually(
      () => api.get(`/api/v1/factories/${s.ws}/orders/${t2.id}`, { key: s.keys.viewer }),
      (r) => r.body.status === "closed",
    );
    expect(after.body.outcome).toBe("completed");
  });
});
