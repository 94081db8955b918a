/**
 * The spec makes `metrics.onAlert` Statuses and `metrics.queryRange` Start, End and Step required.
 * Through the REST API: a document without them is refused with a problem naming each field; the editor's
 * prefilled values (read from the catalog) make a valid document. An automation saved while they still
 * defaulted keeps behaving as before: a captured Alertmanager notification posted to its trigger URL
 * starts a run, and its Query Range step asks REAL Prometheus for the last hour at a 1m step.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setDeps } from "@/server/deps";
import { createRestClient, type RestClient } from "@/server/rest/testing/rest-client";
import { seedRest, type Seed } from "@/server/rest/testing/seed";
import { startRunner, type Runner } from "@/server/runner/runner-loop";
import { runnerHooks } from "@/server/runner-hooks";
import { waitForRun } from "@/server/runner/testing/wait";
import { getRunOrThrow } from "@/server/services/runs";
import { createTestDeps } from "@/server/testing";
import { handleHookRequest } from "@/server/webhooks/lean-listener";
import { startMetricsStack, type MetricsStack } from "./testing/metrics-stack";

const SECRET = "required-config-secret-0123456789";
const firingSample = fs.readFileSync(path.join(import.meta.dirname, "testing/samples/alertmanager-webhook.json"));

let hooks: http.Server;
let deps: Awaited<ReturnType<typeof createTestDeps>>;
let api: RestClient;
let s: Seed;
let runner: Runner;
let stack: MetricsStack;
let connectionId: string;

beforeAll(async () => {
  hooks = http.createServer((req, res) => handleHookRequest(req, res, deps));
  await new Promise<void>((r) => hooks.listen(0, "127.0.0.1", r));
  deps = await createTestDeps({ publicUrl: `http://127.0.0.1:${(hooks.address() as AddressInfo).port}` });
  setDeps(deps);
  api = createRestClient({});
  s = await seedRest(deps);
  stack = await startMetricsStack();
  const con = await api.post(`/api/v1/factories/${s.ws}/connections`, {
    key: s.keys.admin,
    body: {
      integration: "metrics",
      name: "prom",
      config: { metricsBaseUrl: stack.prometheusUrl, alertRouterBaseUrl: stack.alertmanagerUrl, webhookSecret: SECRET },
    },
  });
  expect(con.status).toBe(201);
  connectionId = con.body.id;
  runner = startRunner(deps, runnerHooks(deps), { concurrency: 2, pollMs: 20, retry: { baseMs: 50, maxMs: 200 }, maintenance: false });
}, 60_000);

afterAll(async () => {
  await runner?.stop();
  await stack?.stop();
  await new Promise<void>((r) => hooks?.close(() => r()));
  deps?.close();
});

const doc = (alertConfig: Record<string, unknown>, rangeConfig: Record<string, unknown>, enabled = false) => ({
  name: `required ${Date.now()}`,
  enabled,
  graph: {
    nodes: [
      { id: "t", name: "alert", key: "metrics.onAlert", connectionId, config: alertConfig },
      { id: "q", name: "range", key: "metrics.queryRange", connectionId, config: { query: "vector(1)", ...rangeConfig } },
    ],
    edges: [{ from: "t", to: "q" }],
  },
});

describe("required Statuses, Start, End and Step", () => {
  it("enabling without them is refused with a problem naming each field (a draft lists them); the editor's prefills make it valid", async () => {
    const draft = await api.post(`/api/v1/factories/${s.ws}/apps`, { key: s.keys.editor, body: doc({}, {}) });
    expect(draft.status).toBe(201);
    expect((draft.body.problems as Array<{ path: string }>).map((p) => p.path)).toEqual([
      "graph.nodes.0.config.statuses",
      "graph.nodes.1.config.start",
      "graph.nodes.1.config.end",
      "graph.nodes.1.config.step",
    ]);
    const res = await api.post(`/api/v1/factories/${s.ws}/apps`, { key: s.keys.editor, body: doc({}, {}, true) });
    expect(res.status).toBe(422);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    const problems = (res.body.errors as Array<{ path: string; message: string; nodeId: string }>).map((p) => [p.path, p.message]);
    expect(problems).toEqual([
      ["graph.nodes.0.config.statuses", "Statuses is required (select firing, resolved or both)"],
      ["graph.nodes.1.config.start", expect.stringMatching(/^Start is required \(RFC 3339/)],
      ["graph.nodes.1.config.end", expect.stringMatching(/^End is required \(RFC 3339/)],
      ["graph.nodes.1.config.step", expect.stringMatching(/^Step is required \(a step like 15s or 1m/)],
    ]);

    // The catalog marks them required and carries the form-only prefill (not a schema default).
    const catalog = await api.get("/api/v1/catalog", { key: s.keys.viewer });
    const metrics = (catalog.body.integrations as Array<{ key: string; triggers: Unit[]; components: Unit[] }>).find((i) => i.key === "metrics")!;
    type Unit = { key: string; config: { required: string[]; properties: Record<string, { prefill?: unknown; default?: unknown }> } };
    const onAlert = metrics.triggers.find((u) => u.key === "metrics.onAlert")!.config;
    const range = metrics.components.find((u) => u.key === "metrics.queryRange")!.config;
    expect(onAlert.required).toContain("statuses");
    expect(range.required).toEqual(expect.arrayContaining(["start", "end", "step"]));
    expect(onAlert.properties.statuses).toMatchObject({ prefill: ["firing"] });
    expect(onAlert.properties.statuses).not.toHaveProperty("default");
    const prefill = (c: Unit["config"], keys: string[]) => Object.fromEntries(keys.map((k) => [k, c.properties[k]!.prefill]));
    expect(prefill(range, ["start", "end", "step"])).toEqual({ start: "now-1h", end: "now", step: "1m" });

    const ok = await api.post(`/api/v1/factories/${s.ws}/apps`, {
      key: s.keys.editor,
      body: doc(prefill(onAlert, ["statuses"]), prefill(range, ["start", "end", "step"])),
    });
    expect(ok.status).toBe(201);
  });

  it("an automation saved while they defaulted still fires on firing alerts and queries the last hour at 1m", async () => {
    const created = await api.post(`/api/v1/factories/${s.ws}/apps`, {
      key: s.keys.editor,
      body: doc({ statuses: ["firing"] }, { start: "now-1h", end: "now", step: "1m" }, true),
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    // Rewrite the stored graph as an older Conveyor saved it: the then-optional fields absent.
    const legacy = structuredClone(created.body.graph) as { nodes: Array<{ id: string; config: Record<string, unknown> }> };
    delete legacy.nodes[0]!.config.statuses;
    for (const k of ["start", "end", "step"]) delete legacy.nodes[1]!.config[k];
    await deps.sql("update automations set graph = ? where id = ?", JSON.stringify(legacy), id);
    await deps.sql("update automation_versions set graph = ? where automation_id = ?", JSON.stringify(legacy), id);

    const url = created.body.triggers[0].url as string;
    const before = Date.now() / 1000;
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${SECRET}` },
      body: new Uint8Array(firingSample),
    });
    expect(res.status).toBe(202);
    const { runIds } = (await res.json()) as { runIds: string[] };
    expect(runIds).toHaveLength(1);
    expect(await waitForRun(deps, runIds[0]!)).toBe("succeeded");
    const run = await getRunOrThrow(deps, s.owner, s.ws, runIds[0]!);
    const values = (run.steps.find((x) => x.name === "range")!.output as { data: { result: Array<{ values: Array<[number, string]> }> } }).data.result[0]!
      .values;
    expect(values).toHaveLength(61); // one hour at 1m, both ends included
    expect(values[60]![0] - values[0]![0]).toBe(3600);
    expect(values[60]![0]).toBeGreaterThanOrEqual(Math.floor(before) - 1);

    // Saving that stored document again (enabled) asks for the fields (a clear problem, not a silent default).
    const again = await api.put(`/api/v1/factories/${s.ws}/apps/${id}`, { key: s.keys.editor, body: { ...doc({}, {}, true), graph: legacy } });
    expect(again.status).toBe(422);
    expect((again.body.errors as Array<{ path: string }>).map((p) => p.path)).toEqual([
      "graph.nodes.0.config.statuses",
      "graph.nodes.1.config.start",
      "graph.nodes.1.config.end",
      "graph.nodes.1.config.step",
    ]);
  }, 60_000);
});
