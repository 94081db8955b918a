/**
 * The round trip over every automation the repository's own tests create (harvested from the test
 * files, see testing/harvest-graphs.ts): export → files → offline validation → apply into an empty
 * workspace → export gives byte-identical files, and applying again changes nothing.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDeps, type TestDeps } from "../../testing";
import { setupOwner } from "../users/setup-owner";
import { getUserActor } from "../users/get-user-actor";
import { createWorkspace } from "../workspaces/create-workspace";
import { createConnection } from "../connections/connections";
import { createAutomation, deleteAutomation } from "../automations/save-automation";
import { createLine } from "../lines/lines";
import { createWebhookIntake } from "../intakes-webhook/intakes";
import { GraphSchema } from "../../contracts/graph";
import { openConfigSecrets } from "../automations/node-secrets";
import { bundleFiles } from "../../cli/as-code/files";
import { validateFiles } from "../../as-code/validate-files";
import { getPath, secretPathsFor } from "../../as-code/units";
import { AppError } from "../../errors";
import type { Actor } from "../../auth/permissions";
import { BundleSchema, ImportBodySchema, isSecretRef } from "../../contracts/as-code";
import { exportBundle } from "./export-bundle";
import { importBundle } from "./import-bundle";
import { loadWorkspaceRows } from "./workspace-state";
import { harvestGraphs } from "./testing/harvest-graphs";
import { registerStubs } from "../../runner/testing/stub-integration";

// The runner's tests build graphs of stub components: register them so those graphs count too.
registerStubs();

const ROOT = path.resolve(import.meta.dirname, "../../..");
let deps: TestDeps;
let actor: Actor;
let source: string;
let target: string;
const created: string[] = [];
const refused: string[] = [];

async function connections(ws: string) {
  const metrics = await createConnection(deps, actor, ws, {
    integration: "metrics",
    name: "prod prometheus",
    config: { metricsBaseUrl: "http://127.0.0.1:9", apiAuth: { type: "none" } },
  });
  const tracker = await createConnection(deps, actor, ws, {
    integration: "tracker",
    name: "jira",
    config: { clientId: "corpus", clientSecret: "corpus-secret", enableOpsFeatures: true, authBaseUrl: "http://127.0.0.1:9", apiBaseUrl: "http://127.0.0.1:9" },
  });
  // As after the OAuth consent: a chosen site (the ops and service-desk components need its cloud id).
  await deps.store.connections.update(tracker.id, { state: { cloudId: "corpus-cloud", siteName: "corpus", siteUrl: "http://127.0.0.1:9" } });
  return { metrics: metrics.id, tracker: tracker.id };
}

beforeAll(async () => {
  deps = await createTestDeps();
  const setup = await setupOwner(deps, { email: "corpus@example.test", password: "corpus password long" });
  actor = (await getUserActor(deps, setup.user.id))!;
  source = setup.workspace.id;
  target = (await createWorkspace(deps, actor, { name: "Empty" })).id;
  const conns = await connections(source);
  await connections(target);
  const harvested = await harvestGraphs(ROOT);
  for (const [i, { origin, doc }] of harvested.entries()) {
    const graph = doc.graph as { nodes?: Array<Record<string, unknown>> } | undefined;
    for (const node of graph?.nodes ?? []) {
      if (node.connectionId !== "$connection") continue;
      const integration = String(node.key).split(".")[0];
      if (integration === "metrics" || integration === "tracker") node.connectionId = conns[integration];
      else delete node.connectionId;
    }
    // Runs need no upstream here: keep the trigger set-up off the network (it is tested elsewhere).
    const d = { ...doc, name: `${typeof doc.name === "string" ? doc.name : "corpus"} #${i}`, enabled: false, errorHandlerId: undefined };
    try {
      const a = await createAutomation(deps, actor, source, d);
      const errors = a.problems.filter((p) => p.severity !== "warning");
      if (!errors.length) created.push(a.id);
      else {
        // A draft with problems (the editor keeps those); files must validate, so it is left out.
        await deleteAutomation(deps, actor, source, a.id);
        refused.push(`${origin} (draft: ${errors.map((x) => `${x.path}: ${x.message}`).join("; ")})`);
      }
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      refused.push(`${origin} (${(e.errors ?? []).map((x) => `${x.path}: ${x.message}`).join("; ") || e.message})`); // graphs built to be refused, or with values known only at run time
    }
  }
  const line = await createLine(deps, actor, source, { name: "Corpus line", steps: created.slice(0, 3).map((appId, i) => ({ name: `Step ${i + 1}`, appId })) });
  await createWebhookIntake(deps, actor, source, { name: "Corpus inbox", lineId: line.id });
}, 120_000);
afterAll(async () => deps?.close());

/** Secret values as stored in the source workspace, under the names the export gives them. */
async function storedSecrets(bundle: {
  apps: Array<{ key: string; graph: { nodes: Array<{ id: string; key: string; config: Record<string, unknown> }> } }>;
  intakes: Array<{ key: string; secret: { secret: string } }>;
}) {
  const rows = await loadWorkspaceRows(deps.store, source);
  const out: Record<string, string> = {};
  for (const app of bundle.apps) {
    const row = rows.automations.find((r) => r.key === app.key)!;
    for (const node of app.graph.nodes) {
      for (const p of secretPathsFor(node.key)) {
        const ref = getPath(node.config, p);
        if (!isSecretRef(ref)) continue;
        const stored = GraphSchema.parse(row.graph).nodes.find((n) => n.id === node.id)!;
        out[ref.secret] = openConfigSecrets(deps.box, getPath(stored.config, p)) as string;
      }
    }
  }
  for (const t of bundle.intakes) out[t.secret.secret] = deps.box.decrypt(rows.intakes.find((r) => r.key === t.key)!.secretEnc!);
  return out;
}

describe("round trip over the tests' automations", () => {
  it("harvests the automations the tests build (and finds the ones made to be refused)", () => {
    // 42 when this was written (4 refused: graphs built to fail validation, and an editor draft).
    expect(created.length, `refused:\n${refused.join("\n")}`).toBeGreaterThanOrEqual(40);
    expect(refused.length).toBeGreaterThan(0);
  });

  it("export → apply into an empty workspace → export is byte-identical; applying again changes nothing", async () => {
    const exported = await exportBundle(deps, actor, source);
    expect(exported.apps).toHaveLength(created.length);
    const files = bundleFiles(exported);
    const specs = [...files].filter(([name]) => name.endsWith(".yaml")).map(([file, text]) => ({ file, text }));
    const validated = validateFiles(specs);
    expect(validated.problems).toEqual([]);
    const secrets = await storedSecrets(validated.bundle);
    for (const value of Object.values(secrets)) for (const text of files.values()) expect(text).not.toContain(value);

    const body = (extra: object) => ImportBodySchema.parse({ ...BundleSchema.parse(validated.bundle), secrets, ...extra });
    const applied = await importBundle(deps, actor, target, body({}));
    expect(applied.summary).toMatchObject({ create: created.length + 2, update: 0, delete: 0, unchanged: 1 });
    const again = bundleFiles(await exportBundle(deps, actor, target));
    expect([...again.keys()].sort()).toEqual([...files.keys()].sort());
    for (const [name, text] of files) expect(again.get(name), name).toBe(text);

    const second = await importBundle(deps, actor, target, body({ dryRun: true }));
    expect(second.summary).toMatchObject({ create: 0, update: 0, delete: 0 });
    const withoutSecrets = await importBundle(deps, actor, target, ImportBodySchema.parse({ ...BundleSchema.parse(validated.bundle) }));
    expect(withoutSecrets.summary).toMatchObject({ create: 0, update: 0, delete: 0 });
  }, 120_000);
});
