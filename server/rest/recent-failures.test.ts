/**
 * The REST twin of the editor's "failed in the last 24 hours" badge (GET …/recent-failures) and the runs
 * list's `mode` filter, in process and over HTTP; responses checked against the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDeps } from "../testing";
import { startRestTarget, type RestTarget } from "./testing/target";
import type { RestClient } from "./testing/rest-client";
import { seedRest, type Seed } from "./testing/seed";
import { insertAutomation } from "./testing/automation-fixture";
import { createWorkspace } from "../services/workspaces/create-workspace";

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

const HOUR = 3_600_000;

/**
 * A run created `hoursAgo` before now that ended in `status`. Created with no step to run (finished at
 * once, so the server's runner never touches it), then given its outcome and mode directly.
 */
async function runOf(workspaceId: string, automationId: string, hoursAgo: number, status: "failed" | "succeeded", mode: "production" | "test" = "production") {
  const made = await deps.store.runs.create({
    workspaceId,
    automationId,
    version: 1,
    triggerNodeId: "n1",
    envelope: { type: "core.manual", timestamp: new Date().toISOString(), data: {} },
    source: "manual",
    firstNodes: [],
    at: new Date(Date.now() - hoursAgo * HOUR),
  });
  const error = status === "failed" ? JSON.stringify({ message: "boom", nodeId: "n1" }) : null;
  await target.sql("update runs set status = ?, mode = ?, error = ? where id = ?", status, mode, error, made!.runId);
  return made!.runId;
}

describe("recent failures", () => {
  it("counts the workspace's production runs that failed in the last 24 hours (or since a time), for a viewer", async () => {
    const ws = (await createWorkspace(deps, s.owner, { name: "Failures" })).id;
    const app = await insertAutomation(deps, ws);
    await runOf(ws, app, 1, "failed");
    await runOf(ws, app, 5, "failed");
    await runOf(ws, app, 23.5, "failed");
    await runOf(ws, app, 25, "failed"); // before the window
    await runOf(ws, app, 1, "succeeded");
    await runOf(ws, app, 2, "failed", "test"); // a test in the editor: not a failure to page on
    await runOf(s.other, await insertAutomation(deps, s.other), 1, "failed"); // another workspace

    const before = Date.now();
    const res = await api.get(`/api/v1/factories/${ws}/recent-failures`, { key: s.keys.viewer });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ failed: 3, more: false });
    const since = Date.parse(res.body.since);
    expect(since).toBeGreaterThanOrEqual(before - 24 * HOUR - 1000);
    expect(since).toBeLessThanOrEqual(Date.now() - 24 * HOUR + 1000);

    const twoHours = new Date(Date.now() - 2 * HOUR).toISOString();
    const narrow = await api.get(`/api/v1/factories/${ws}/recent-failures?since=${twoHours}`, { key: s.keys.viewer });
    expect(narrow.body).toEqual({ failed: 1, more: false, since: twoHours });
    const week = await api.get(`/api/v1/factories/${ws}/recent-failures?since=${new Date(Date.now() - 7 * 24 * HOUR).toISOString()}`, { key: s.keys.viewer });
    expect(week.body.failed).toBe(4);
  });

  it("stops counting at 100: 99 and `more`", async () => {
    const ws = (await createWorkspace(deps, s.owner, { name: "Storm" })).id;
    const app = await insertAutomation(deps, ws);
    for (let i = 0; i < 100; i++) await runOf(ws, app, 1 + i / 100, "failed");
    const res = await api.get(`/api/v1/factories/${ws}/recent-failures`, { key: s.keys.viewer });
    expect(res.body).toMatchObject({ failed: 99, more: true });
    const fewer = await api.get(`/api/v1/factories/${ws}/recent-failures?since=${new Date(Date.now() - 1.5 * HOUR).toISOString()}`, { key: s.keys.viewer });
    expect(fewer.body).toMatchObject({ failed: 50, more: false });
  });

  it("refuses a bad or future `since` (422 naming it), unknown parameters, hidden workspaces and missing keys", async () => {
    const url = `/api/v1/factories/${s.ws}/recent-failures`;
    const future = await api.get(`${url}?since=${new Date(Date.now() + HOUR).toISOString()}`, { key: s.keys.viewer });
    expect([future.status, future.body.errors]).toEqual([422, [{ path: "query.since", message: "In the future" }]]);
    const garbage = await api.get(`${url}?since=yesterday`, { key: s.keys.viewer });
    expect([garbage.status, garbage.body.errors?.[0]?.path]).toEqual([422, "query.since"]);
    expect((await api.get(`${url}?status=failed`, { key: s.keys.viewer })).status).toBe(422);
    expect((await api.get(`/api/v1/factories/${s.other}/recent-failures`, { key: s.keys.limitedAdmin })).status).toBe(404);
    expect((await api.get(url)).status).toBe(401);
    expect((await api.post(url, { key: s.keys.admin, body: {} })).status).toBe(405);
  });
});

describe("runs list: mode filter", () => {
  it("lists only production runs or only test runs", async () => {
    const app = await insertAutomation(deps, s.ws, "Modes");
    const prod = await runOf(s.ws, app, 1, "failed");
    const test = await runOf(s.ws, app, 0.5, "failed", "test");
    const base = `/api/v1/factories/${s.ws}/apps/${app}/runs`;
    const ids = async (q: string) => (await api.get(`${base}${q}`, { key: s.keys.viewer })).body.data.map((r: { id: string }) => r.id);
    expect(await ids("")).toEqual([test, prod]);
    expect(await ids("?mode=production")).toEqual([prod]);
    expect(await ids("?mode=test&status=failed")).toEqual([test]);
    expect((await api.get(`${base}?mode=dry`, { key: s.keys.viewer })).status).toBe(422);
  });
});
