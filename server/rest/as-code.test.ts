/** Export and plan/apply (bulk import) through /api/v1, responses checked against the OpenAPI document. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDeps } from "../testing";
import { startRestTarget, type RestTarget } from "./testing/target";
import type { RestClient } from "./testing/rest-client";
import { seedRest, type Seed } from "./testing/seed";

let target: RestTarget;
let deps: TestDeps;
let api: RestClient;
let s: Seed;
const HOOK_SECRET = "hook-secret-value-1234";
const INTAKE_SECRET = "intake-secret-value-5678";

const connection = (ws: string) =>
  api.post(`/api/v1/factories/${ws}/connections`, {
    key: s.keys.admin,
    body: {
      integration: "metrics",
      name: "prod prometheus",
      config: { metricsBaseUrl: "http://127.0.0.1:9", alertRouterBaseUrl: "http://127.0.0.1:9", apiAuth: { type: "none" } },
    },
  });

beforeAll(async () => {
  target = await startRestTarget();
  ({ deps, api } = target);
  s = await seedRest(deps);
  const con = await connection(s.ws);
  expect(con.status).toBe(201);
  const app = await api.post(`/api/v1/factories/${s.ws}/apps`, {
    key: s.keys.editor,
    body: {
      name: "Silence disk alerts",
      enabled: true,
      graph: {
        nodes: [
          { id: "t", name: "hook", key: "core.webhook", config: { authentication: "bearer", secret: HOOK_SECRET }, position: { x: 0, y: 0 } },
          {
            id: "s",
            name: "silence",
            key: "metrics.createSilence",
            connectionId: con.body.id,
            config: { matchers: [{ name: "alertname", value: "{{ $trigger.data.body.alert }}" }], duration: "1h", createdBy: "conveyor", comment: "auto" },
            position: { x: 280, y: 0 },
          },
        ],
        edges: [{ from: "t", to: "s" }],
      },
    },
  });
  expect(app.status).toBe(201);
  expect(app.body.key).toBe("silence-disk-alerts");
  const line = await api.post(`/api/v1/factories/${s.ws}/lines`, {
    key: s.keys.editor,
    body: { name: "Disk follow-up", steps: [{ name: "Silence", appId: app.body.id }] },
  });
  expect(line.body.key).toBe("disk-follow-up");
  const intake = await api.post(`/api/v1/factories/${s.ws}/intakes`, { key: s.keys.editor, body: { name: "Disk inbox", lineId: line.body.id } });
  expect(intake.status).toBe(201);
  await deps.sql("update intakes set secret_enc = ? where id = ?", deps.box.encrypt(INTAKE_SECRET), intake.body.id);
}, 90_000);
afterAll(() => target?.close());

const exportOf = async (ws: string) => {
  const r = await api.get(`/api/v1/factories/${ws}/export`, { key: s.keys.viewer });
  expect(r.status).toBe(200);
  return r;
};
const importInto = (ws: string, body: object, key = s.keys.editor) => api.post(`/api/v1/factories/${ws}/import`, { key, body });
const bundleOf = (b: { apps: unknown; lines: unknown; intakes: unknown }) => ({ apps: b.apps, lines: b.lines, intakes: b.intakes });

describe("automations as code over REST", () => {
  it("exports specs with keys, connection names and secret references, never secret values", async () => {
    const r = await exportOf(s.ws);
    expect(r.text).not.toContain(HOOK_SECRET);
    expect(r.text).not.toContain(INTAKE_SECRET);
    expect(r.text).not.toMatch(/"secret:/);
    const app = r.body.apps.find((a: { key: string }) => a.key === "silence-disk-alerts");
    expect(app.graph.nodes[0].config.secret).toEqual({ secret: "silence-disk-alerts-hook" });
    expect(app.graph.nodes[1].connection).toBe("prod prometheus");
    expect(r.body.lines.map((l: { key: string }) => l.key).sort()).toEqual(["default", "disk-follow-up"]);
    expect(r.body.lines.find((l: { key: string }) => l.key === "disk-follow-up").steps).toEqual([{ name: "Silence", automation: "silence-disk-alerts" }]);
    expect(r.body.intakes).toEqual([{ key: "disk-inbox", name: "Disk inbox", line: "disk-follow-up", open: true, secret: { secret: "intake-disk-inbox" } }]);
  });

  it("refuses a misspelt flag instead of dropping it: `dryrun` applied the bundle it meant to plan", async () => {
    const bundle = {
      apps: [{ key: "typo-app", name: "Typo app", graph: { nodes: [{ id: "n1", name: "start", key: "core.manual", config: {} }], edges: [] } }],
    };
    for (const body of [
      { ...bundle, dryrun: true },
      { ...bundle, dryRun: true, source: { comit: "abc" } },
    ]) {
      const res = await importInto(s.other, body);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([
        { path: "dryrun" in body ? "dryrun" : "source.comit", message: `Unknown field: ${"dryrun" in body ? "dryrun" : "comit"}` },
      ]);
    }
    expect((await api.get(`/api/v1/factories/${s.other}/apps`, { key: s.keys.viewer })).body.data).toHaveLength(0);
  });

  it("names an unknown node input once (the as-code check and the automation validator both find it)", async () => {
    const apps = [
      {
        key: "stray-input",
        name: "Stray input",
        graph: { nodes: [{ id: "n1", name: "hook", key: "core.webhook", config: { authentication: "none", authentcation: "none" } }], edges: [] },
      },
    ];
    const res = await importInto(s.other, { apps, dryRun: true });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      { path: "apps.0.graph.nodes.0.config.authentcation", nodeId: "n1", message: 'Unknown input "authentcation" for core.webhook' },
    ]);
  });

  it("names the secret whose given value breaks the field's rule (the file holds only the reference)", async () => {
    const apps = [
      {
        key: "short-secret",
        name: "Short secret",
        graph: { nodes: [{ id: "n1", name: "hook", key: "core.webhook", config: { authentication: "bearer", secret: { secret: "short-hook" } } }], edges: [] },
      },
    ];
    const res = await importInto(s.other, { apps, secrets: { "short-hook": "x" }, dryRun: true });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      {
        path: "apps.0.graph.nodes.0.config.secret",
        nodeId: "n1",
        message: expect.stringMatching(/^The value given for secret "short-hook" \(CONVEYOR_SECRET_SHORT_HOOK\): Too small/),
      },
    ]);
    expect(res.text).not.toContain('"x"');
  });

  it("plans, refuses what cannot resolve (every problem at once), applies all or nothing, and a second apply changes nothing", async () => {
    const bundle = bundleOf((await exportOf(s.ws)).body);
    const missing = await importInto(s.other, { ...bundle, dryRun: true });
    expect(missing.status).toBe(422);
    const paths = missing.body.errors.map((e: { path: string; message: string }) => `${e.path}: ${e.message}`).join("\n");
    expect(paths).toMatch(/apps\.0\.graph\.nodes\.1\.connection: No connection named "prod prometheus"/);
    expect(paths).toMatch(
      /apps\.0\.graph\.nodes\.0\.config\.secret: Secret "silence-disk-alerts-hook" has no value in this workspace: set CONVEYOR_SECRET_SILENCE_DISK_ALERTS_HOOK/,
    );
    expect(paths).toMatch(/intakes\.0\.secret: Secret "intake-disk-inbox"/);
    // Once, by name: not again as the validator's "expected string, received object" for the reference.
    expect(missing.body.errors.filter((e: { path: string }) => e.path === "apps.0.graph.nodes.0.config.secret")).toHaveLength(1);
    expect(missing.text).not.toContain(HOOK_SECRET);
    expect((await api.get(`/api/v1/factories/${s.other}/apps`, { key: s.keys.viewer })).body.data).toHaveLength(0);

    expect((await connection(s.other)).status).toBe(201);
    const secrets = { "silence-disk-alerts-hook": HOOK_SECRET, "intake-disk-inbox": INTAKE_SECRET };
    const planned = await importInto(s.other, { ...bundle, secrets, dryRun: true });
    expect(planned.status).toBe(200);
    expect(planned.text).not.toContain(HOOK_SECRET);
    expect(planned.body.summary).toEqual({ create: 3, update: 0, delete: 0, unchanged: 1, unmanaged: 0 });
    expect((await api.get(`/api/v1/factories/${s.other}/apps`, { key: s.keys.viewer })).body.data).toHaveLength(0);

    const applied = await importInto(s.other, {
      ...bundle,
      secrets,
      source: {
        repository: "git@example.test:ops/automations.git",
        commit: "abc1234",
        files: { "automation/silence-disk-alerts": "automations/silence-disk-alerts.yaml" },
      },
    });
    expect(applied.status).toBe(200);
    expect(applied.body.applied).toBe(true);
    const again = await exportOf(s.other);
    expect(bundleOf(again.body)).toEqual(bundle);
    const apps = (await api.get(`/api/v1/factories/${s.other}/apps`, { key: s.keys.viewer })).body.data;
    expect(apps[0].source).toMatchObject({ path: "automations/silence-disk-alerts.yaml", commit: "abc1234", appliedVersion: 1 });
    // The secret works where it was applied: the webhook trigger accepts the bearer from the environment.
    const [stored] = await deps.sql<{ graph: unknown }>("select graph from automations where id = ?", apps[0].id);
    const storedText = typeof stored!.graph === "string" ? stored!.graph : JSON.stringify(stored!.graph);
    expect(storedText).toContain("secret:");
    expect(storedText).not.toContain(HOOK_SECRET);

    const second = await importInto(s.other, { ...bundle, secrets });
    expect(second.body.summary).toMatchObject({ create: 0, update: 0, delete: 0 });
    const noSecrets = await importInto(s.other, { ...bundle, dryRun: true });
    expect(noSecrets.body.summary).toMatchObject({ create: 0, update: 0 });
    const rotated = await importInto(s.other, { ...bundle, secrets: { "intake-disk-inbox": "another-intake-secret-9" }, dryRun: true });
    expect(rotated.body.entries.find((e: { kind: string }) => e.kind === "intake").changes).toEqual([{ path: "secret", op: "change", secret: true }]);
    expect(rotated.text).not.toContain("another-intake-secret-9");
  });

  it("carries an intake's signature settings: PATCH sets them, the export writes them, a file without them changes them back", async () => {
    const bundle = bundleOf((await exportOf(s.other)).body);
    const [intake] = (await api.get(`/api/v1/factories/${s.other}/intakes`, { key: s.keys.viewer })).body.data.filter(
      (i: { kind: string }) => i.kind === "webhook",
    );
    expect(intake.signature).toEqual({ requireTimestampedSignature: false, signatureToleranceSeconds: null });
    const url = `/api/v1/factories/${s.other}/intakes/${intake.id}`;
    expect((await api.patch(url, { key: s.keys.viewer, body: { requireTimestampedSignature: true } })).status).toBe(403);
    expect((await api.patch(url, { key: s.keys.editor, body: { signatureToleranceSeconds: 4 } })).status).toBe(422);
    const set = await api.patch(url, { key: s.keys.editor, body: { requireTimestampedSignature: true, signatureToleranceSeconds: 120 } });
    expect(set.status).toBe(200);
    expect(set.body.signature).toEqual({ requireTimestampedSignature: true, signatureToleranceSeconds: 120 });
    const exported = bundleOf((await exportOf(s.other)).body);
    expect(exported.intakes).toEqual([{ ...(bundle.intakes as object[])[0], requireTimestampedSignature: true, signatureToleranceSeconds: 120 }]);
    expect((await importInto(s.other, { ...exported, dryRun: true })).body.summary).toMatchObject({ create: 0, update: 0, delete: 0 });
    const back = await importInto(s.other, bundle);
    expect(back.status).toBe(200);
    expect(back.body.entries.find((e: { kind: string }) => e.kind === "intake").changes).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: "requireTimestampedSignature", op: "remove" })]),
    );
    const after = (await api.get(`/api/v1/factories/${s.other}/intakes`, { key: s.keys.viewer })).body.data.find((i: { id: string }) => i.id === intake.id);
    expect(after.signature).toEqual({ requireTimestampedSignature: false, signatureToleranceSeconds: null });
    // A trigger's URL takes these settings from its node.
    const trigger = (await api.get(`/api/v1/factories/${s.other}/intakes`, { key: s.keys.viewer })).body.data.find(
      (i: { kind: string }) => i.kind === "trigger",
    );
    const refused = await api.patch(`/api/v1/factories/${s.other}/intakes/${trigger.id}`, { key: s.keys.editor, body: { requireTimestampedSignature: true } });
    expect(refused.status).toBe(409);
  });

  it("shows field-level changes, refuses (409) over an editor change unless forced, and deletes only with prune", async () => {
    const bundle = bundleOf((await exportOf(s.other)).body) as {
      apps: Array<{ graph: { nodes: Array<{ config: Record<string, unknown> }> } }>;
      lines: Array<{ key: string }>;
      intakes: unknown[];
    };
    const changed = structuredClone(bundle);
    changed.apps[0]!.graph.nodes[1].config.duration = "2h";
    const plan = await importInto(s.other, { ...changed, dryRun: true });
    expect(plan.body.entries.find((e: { kind: string }) => e.kind === "automation")).toMatchObject({
      action: "update",
      changes: [{ path: "graph.nodes[silence].config.duration", op: "change", before: "1h", after: "2h" }],
    });

    // Someone edits the automation in the editor (any save through the services counts).
    const app = (await api.get(`/api/v1/factories/${s.other}/apps`, { key: s.keys.viewer })).body.data[0];
    const put = await api.put(`/api/v1/factories/${s.other}/apps/${app.id}`, {
      key: s.keys.editor,
      body: {
        name: app.name,
        enabled: app.enabled,
        graph: {
          ...app.graph,
          nodes: app.graph.nodes.map((n: { id: string; config: object }) =>
            n.id === "s" ? { ...n, config: { ...n.config, comment: "edited in the editor" } } : n,
          ),
        },
      },
    });
    expect(put.status).toBe(200);
    const conflictPlan = await importInto(s.other, { ...changed, dryRun: true });
    expect(conflictPlan.body.conflicts).toEqual([
      expect.objectContaining({ kind: "automation", key: "silence-disk-alerts", message: expect.stringMatching(/version 1 → 2, last saved by api-key:/) }),
    ]);
    const refused = await importInto(s.other, changed);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].path).toBe("apps.0");
    expect((await api.get(`/api/v1/factories/${s.other}/apps/${app.id}`, { key: s.keys.viewer })).body.version).toBe(2);
    const forced = await importInto(s.other, { ...changed, force: true });
    expect(forced.status).toBe(200);
    const after = (await api.get(`/api/v1/factories/${s.other}/apps/${app.id}`, { key: s.keys.viewer })).body;
    expect(after.graph.nodes[1].config).toMatchObject({ duration: "2h", comment: "auto" });
    expect(after.source.appliedVersion).toBe(3);

    // Without the automation (and its line and intake) in the bundle: kept unless --prune.
    const without = { apps: [], lines: bundle.lines.filter((l) => l.key === "default"), intakes: [] };
    const kept = await importInto(s.other, { ...without, dryRun: true });
    expect(kept.body.summary).toMatchObject({ delete: 0, unmanaged: 3 });
    const pruned = await importInto(s.other, { ...without, prune: true });
    expect(pruned.status).toBe(200);
    expect(pruned.body.summary).toMatchObject({ delete: 3 });
    expect((await api.get(`/api/v1/factories/${s.other}/apps`, { key: s.keys.viewer })).body.data).toHaveLength(0);
    expect((await importInto(s.other, { ...without, prune: true }, s.keys.viewer)).status).toBe(403);
  });
  it("keeps a disabled node disabled through export and apply (files dropped the flag: an apply re-enabled the step), and the editor-only labels and pins", async () => {
    const created = await api.post(`/api/v1/factories/${s.ws}/apps`, {
      key: s.keys.editor,
      body: {
        name: "Disabled pause",
        enabled: true,
        graph: {
          nodes: [
            { id: "t", name: "hook", key: "core.webhook", config: {} },
            {
              id: "w",
              name: "pause",
              key: "core.wait",
              config: { duration: "1s" },
              disabled: true,
              labels: { duration: { value: "1s", label: "One second" } },
              pinned: { output: { type: "core.wait", timestamp: "2026-11-25T10:00:00.000Z", data: { waited: true } } },
            },
          ],
          edges: [{ from: "t", to: "w" }],
        },
      },
    });
    expect(created.status).toBe(201);
    const spec = (await exportOf(s.ws)).body.apps.find((a: { key: string }) => a.key === "disabled-pause");
    expect(spec.graph.nodes[1]).toMatchObject({ name: "pause", disabled: true });
    expect((await importInto(s.ws, { apps: [spec], dryRun: true })).body.summary).toMatchObject({ create: 0, update: 0 });
    const applied = await importInto(s.ws, { apps: [{ ...spec, name: "Disabled pause, renamed" }] });
    expect(applied.status).toBe(200);
    const after = (await api.get(`/api/v1/factories/${s.ws}/apps/${created.body.id}`, { key: s.keys.viewer })).body;
    expect(after.name).toBe("Disabled pause, renamed");
    expect(after.graph.nodes[1].disabled).toBe(true);
    // Editor-only data that files do not carry stays as stored (an apply dropped both).
    expect(after.graph.nodes[1].labels).toEqual({ duration: { value: "1s", label: "One second" } });
    expect(after.graph.nodes[1].pinned.output.data).toEqual({ waited: true });
    const changed = await importInto(s.ws, {
      apps: [{ ...spec, graph: { ...spec.graph, nodes: [spec.graph.nodes[0], { ...spec.graph.nodes[1], config: { duration: "2s" } }] } }],
    });
    expect(changed.status).toBe(200);
    const relabelled = (await api.get(`/api/v1/factories/${s.ws}/apps/${created.body.id}`, { key: s.keys.viewer })).body;
    expect(relabelled.graph.nodes[1].labels).toBeUndefined(); // the label named the old value
  });
});
