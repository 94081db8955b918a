/**
 * The `conveyor` command line as a process (node bin/conveyor.mjs …) against a running REST API:
 * the in-process route modules served on a loopback port, or the built app with CONVEYOR_REST_HTTP=1.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDeps } from "../../testing";
import { startRestTarget, type RestTarget } from "../../rest/testing/target";
import { serveInProcess } from "../../rest/testing/http-adapter";
import type { RestClient } from "../../rest/testing/rest-client";
import { seedRest, type Seed } from "../../rest/testing/seed";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const HOOK_SECRET = "cli-hook-secret-0a1b2c3d";
const INTAKE_SECRET = "cli-intake-secret-4e5f6a7b";
let target: RestTarget;
let deps: TestDeps;
let api: RestClient;
let s: Seed;
let server: { url: string; close(): Promise<void> };
let dir: string;

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, "bin/conveyor.mjs"), ...args], {
      cwd: dir,
      env: {
        ...process.env,
        CONVEYOR_URL: server.url,
        CONVEYOR_API_KEY: s.keys.editor,
        GITHUB_ACTIONS: "",
        GITHUB_SHA: "",
        CI_COMMIT_SHA: "",
        CONVEYOR_CWD: dir,
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
const SECRETS = { CONVEYOR_SECRET_SILENCE_DISK_ALERTS_HOOK: HOOK_SECRET, CONVEYOR_SECRET_INTAKE_DISK_INBOX: INTAKE_SECRET };
const noSecrets = (...texts: string[]) => {
  for (const t of texts) {
    expect(t).not.toContain(HOOK_SECRET);
    expect(t).not.toContain(INTAKE_SECRET);
  }
};
const readTree = (d: string): Record<string, string> => {
  const out: Record<string, string> = {};
  const walk = (x: string) => {
    for (const e of fs.readdirSync(x, { withFileTypes: true })) {
      const abs = path.join(x, e.name);
      if (e.isDirectory()) walk(abs);
      else out[path.relative(d, abs)] = fs.readFileSync(abs, "utf8");
    }
  };
  walk(d);
  return out;
};

beforeAll(async () => {
  // The command line builds dist/server when it is missing or older than the sources, and says so on
  // stderr; build it first, so the tests see what a user with the build present sees (in a fresh
  // clone this file may be the first to run the command).
  const build = (await import(path.join(ROOT, "scripts/build-server.mjs"))) as { ensureServerBundle(o: { quiet: boolean }): Promise<void> };
  await build.ensureServerBundle({ quiet: true });
  target = await startRestTarget();
  ({ deps, api } = target);
  s = await seedRest(deps);
  server = api.overHttp ? { url: api.baseUrl, close: async () => {} } : await serveInProcess();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-cli-"));
  const con = { integration: "metrics", name: "prod prometheus", config: { metricsBaseUrl: "http://127.0.0.1:9", apiAuth: { type: "none" } } };
  const c = await api.post(`/api/v1/factories/${s.ws}/connections`, { key: s.keys.admin, body: con });
  expect((await api.post(`/api/v1/factories/${s.other}/connections`, { key: s.keys.admin, body: con })).status).toBe(201);
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
            connectionId: c.body.id,
            config: {
              comment: "Disk {{ $trigger.data.body.host }}\nby Conveyor",
              createdBy: "conveyor",
              duration: "1h",
              matchers: [{ name: "alertname", value: "{{ $trigger.data.body.alert }}" }],
            },
            position: { x: 280, y: 0 },
          },
        ],
        edges: [{ from: "t", to: "s" }],
      },
    },
  });
  expect(app.status).toBe(201);
  const line = await api.post(`/api/v1/factories/${s.ws}/lines`, {
    key: s.keys.editor,
    body: { name: "Disk follow-up", steps: [{ name: "Silence", appId: app.body.id }] },
  });
  const intake = await api.post(`/api/v1/factories/${s.ws}/intakes`, { key: s.keys.editor, body: { name: "Disk inbox", lineId: line.body.id } });
  await deps.sql("update intakes set secret_enc = ? where id = ?", deps.box.encrypt(INTAKE_SECRET), intake.body.id);
}, 120_000);
afterAll(async () => {
  await server?.close();
  await target?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("conveyor <command> --help", () => {
  it("shows the command's own usage and options (each printed the overview), and refuses a command that does not exist", async () => {
    const plan = await cli(["plan", "--help"]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/^Usage: conveyor plan DIR --workspace ID\|NAME/);
    expect(plan.stdout).toContain("--prune");
    expect(plan.stdout).toContain("CONVEYOR_SECRET_<NAME>");
    expect(plan.stdout).not.toContain("owner create");
    expect((await cli(["help", "export"])).stdout).toMatch(/^Usage: conveyor export --workspace ID\|NAME --out DIR/);
    const overview = await cli(["--help"]);
    expect(overview.stdout).toContain("conveyor owner create");
    expect(overview.stdout).toContain("conveyor <command> --help");
    // An option the command does not read is refused, not ignored: `apply --dry-run` applied for real.
    const dry = await cli(["apply", "nowhere", "--workspace", "Other", "--dry-run"]);
    expect(dry.code).toBe(1);
    expect(dry.stderr).toContain("apply has no --dry-run: conveyor plan shows what apply would change and writes nothing");
    const stray = await cli(["export", "--workspace", "Other", "--out", "x", "--prune"]);
    expect(stray.code).toBe(1);
    expect(stray.stderr).toContain("export takes no --prune; run conveyor export --help");
    const typo = await cli(["export", "--wrokspace", "Other", "--out", "x"]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toBe("conveyor: unknown option --wrokspace; run conveyor export --help\n");
    const unknown = await cli(["diff", "--help"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown command "diff"; run conveyor --help');
  });
});

describe("conveyor plan / export against the wrong address or an oversized bundle", () => {
  it("says a web page answered (a proxy, a sign-in page, a wrong port) instead of a JSON parse error", async () => {
    const page = http.createServer((_req, res) => res.writeHead(404, { "content-type": "text/html; charset=utf-8" }).end("<!DOCTYPE html><p>Not found</p>"));
    await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(page.address() as { port: number }).port}/w`;
      const r = await cli(["export", "--workspace", "Other", "--out", "nowhere"], { CONVEYOR_URL: url });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${url}/api/v1/factories answered 404 with text/html, not JSON: is ${url} the address of the Conveyor server`);
      expect(r.stderr).not.toContain("Unexpected token");
    } finally {
      await new Promise((resolve) => page.close(resolve));
    }
  });

  it("takes the API's address (…/api/v1, as README's curl examples export it) for the server's", async () => {
    fs.mkdirSync(path.join(dir, "empty"), { recursive: true });
    const planned = await cli(["plan", "empty", "--workspace", "Other"], { CONVEYOR_URL: `${server.url}/api/v1/` });
    expect(planned.stderr).toBe("");
    expect(planned.stdout).toContain(`Workspace "Other" (${s.other}) at ${server.url}`);
    expect(planned.code).toBe(0);
  });

  it("names the server setting to raise when the bundle is over the API body limit (413)", async () => {
    fs.mkdirSync(path.join(dir, "huge/automations"), { recursive: true });
    const text = [
      "kind: automation",
      "key: huge",
      "name: Huge",
      `description: ${"x".repeat(4000)}`,
      "graph:",
      "  nodes:",
      ...Array.from({ length: 300 }, (_, i) => `    - { id: n${i}, name: n${i}, key: core.manual, notes: ${"y".repeat(4000)} }`),
      "",
    ].join("\n");
    fs.writeFileSync(path.join(dir, "huge/automations/huge.yaml"), text);
    const r = await cli(["plan", "huge", "--workspace", "Other"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Plan failed: .*limit.* Raise CONVEYOR_API_MAX_BYTES on the server/);
  });
});

describe("conveyor export / validate / plan / apply", () => {
  it("round-trips a workspace: export, apply into another, export again byte-identical; a second apply changes nothing", async () => {
    const exported = await cli(["export", "--workspace", s.ws, "--out", "exported"]);
    expect(exported.stderr).toBe("");
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain(": 1 automation, 2 lines, 1 intake.");
    const files = readTree(path.join(dir, "exported"));
    expect(Object.keys(files).sort()).toEqual([
      "automations/silence-disk-alerts.yaml",
      "conveyor.schema.json",
      "intakes/disk-inbox.yaml",
      "lines/default.yaml",
      "lines/disk-follow-up.yaml",
    ]);
    expect(files["automations/silence-disk-alerts.yaml"]).toMatch(/^\$schema: \.\.\/conveyor\.schema\.json\napiVersion: conveyor\/v1\nkind: automation\nkey: silence-disk-alerts\n/);
    expect(files["automations/silence-disk-alerts.yaml"]).toContain("secret: { secret: silence-disk-alerts-hook }");
    expect(files["automations/silence-disk-alerts.yaml"]).toContain("connection: prod prometheus");
    // Config in the component's own order (matchers, duration, createdBy, comment), not as it was sent.
    expect(files["automations/silence-disk-alerts.yaml"]).toMatch(/matchers:[\s\S]*duration: 1h[\s\S]*createdBy: conveyor[\s\S]*comment: \|-\n\s+Disk/);
    noSecrets(...Object.values(files));

    expect((await cli(["validate", "exported"])).code).toBe(0);
    const missing = await cli(["apply", "exported", "--workspace", "Other"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("exported/automations/silence-disk-alerts.yaml:");
    expect(missing.stderr).toContain("set CONVEYOR_SECRET_SILENCE_DISK_ALERTS_HOOK");

    const applied = await cli(["apply", "exported", "--workspace", "Other", "--commit", "0123abcd"], SECRETS);
    expect(applied.stderr).toBe("");
    expect(applied.stdout).toContain("+ automation silence-disk-alerts  (exported/automations/silence-disk-alerts.yaml)");
    expect(applied.stdout).toContain("Applied: 3 to create, 0 to change, 0 to delete");
    expect(applied.stdout).toContain("Secrets from the environment: intake-disk-inbox, silence-disk-alerts-hook");
    noSecrets(applied.stdout, applied.stderr, missing.stdout, missing.stderr);
    const app = (await api.get(`/api/v1/factories/${s.other}/apps`, { key: s.keys.viewer })).body.data[0];
    expect(app.source).toMatchObject({ commit: "0123abcd", path: "exported/automations/silence-disk-alerts.yaml" });

    expect((await cli(["export", "--workspace", "Other", "--out", "again"])).code).toBe(0);
    expect(readTree(path.join(dir, "again"))).toEqual(files);
    const twice = await cli(["apply", "exported", "--workspace", "Other"], SECRETS);
    expect(twice.code).toBe(0);
    expect(twice.stdout).toContain("No changes: 0 to create, 0 to change, 0 to delete");
  }, 120_000);

  it("plans field-level changes, refuses over an editor change unless --force, deletes only with --prune", async () => {
    const file = path.join(dir, "again/automations/silence-disk-alerts.yaml");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("duration: 1h", "duration: 2h"));
    const plan = await cli(["plan", "again", "--workspace", "Other"]);
    expect(plan.stdout).toContain('~ graph.nodes[silence].config.duration: "1h" → "2h"');
    expect(plan.stdout).toContain("Plan: 0 to create, 1 to change, 0 to delete");
    expect(plan.code).toBe(0);

    const app = (await api.get(`/api/v1/factories/${s.other}/apps`, { key: s.keys.viewer })).body.data[0];
    const put = await api.put(`/api/v1/factories/${s.other}/apps/${app.id}`, {
      key: s.keys.editor,
      body: { name: "Renamed in the editor", enabled: true, graph: app.graph },
    });
    expect(put.status).toBe(200);
    const conflict = await cli(["plan", "again", "--workspace", "Other"]);
    expect(conflict.code).toBe(1);
    expect(conflict.stdout).toMatch(/! automation silence-disk-alerts changed outside the files since the last apply \(version 1 → 2/);
    const refused = await cli(["apply", "again", "--workspace", "Other"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('again/automations/silence-disk-alerts.yaml:1:1 automation "silence-disk-alerts" changed outside the files');
    expect(refused.stderr).toContain("Nothing was applied");
    expect((await api.get(`/api/v1/factories/${s.other}/apps/${app.id}`, { key: s.keys.viewer })).body.name).toBe("Renamed in the editor");
    const forced = await cli(["apply", "again", "--workspace", "Other", "--force"]);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('~ name: "Renamed in the editor" → "Silence disk alerts"');
    expect((await api.get(`/api/v1/factories/${s.other}/apps/${app.id}`, { key: s.keys.viewer })).body.graph.nodes[1].config.duration).toBe("2h");

    fs.rmSync(path.join(dir, "again/intakes/disk-inbox.yaml"));
    const kept = await cli(["apply", "again", "--workspace", "Other"]);
    expect(kept.stdout).toContain("intake disk-inbox: not in the files (kept; --prune deletes it)");
    const pruned = await cli(["apply", "again", "--workspace", "Other", "--prune"]);
    expect(pruned.stdout).toContain("- intake disk-inbox");
    expect(pruned.stdout).toContain("Applied: 0 to create, 0 to change, 1 to delete");
    expect(
      (await api.get(`/api/v1/factories/${s.other}/intakes`, { key: s.keys.viewer })).body.data.filter((i: { kind: string }) => i.kind === "webhook"),
    ).toHaveLength(0);
  }, 120_000);

  it("reports problems as file:line:column (or GitHub annotations) with exit code 1, offline and at plan time", async () => {
    fs.mkdirSync(path.join(dir, "broken/automations"), { recursive: true });
    const text = [
      "kind: automation",
      "key: broken",
      "name: Broken",
      "graph:",
      "  nodes:",
      "    - id: t",
      "      name: start",
      "      key: core.manual",
      "    - id: x",
      "      name: x",
      "      key: metrics.silenceEverything",
      "  edges:",
      "    - { from: t, to: x }",
      "",
    ].join("\n");
    fs.writeFileSync(path.join(dir, "broken/automations/broken.yaml"), text);
    const offline = await cli(["validate", "broken"], { CONVEYOR_URL: "http://127.0.0.1:9" });
    expect(offline.code).toBe(1);
    expect(offline.stderr).toContain('broken/automations/broken.yaml:11:12 Unknown trigger or component "metrics.silenceEverything"');
    const github = await cli(["validate", "broken", "--format", "github"]);
    expect(github.stderr).toContain("::error file=broken/automations/broken.yaml,line=11,col=12::Unknown trigger or component");

    fs.writeFileSync(
      path.join(dir, "broken/automations/broken.yaml"),
      text.replace("key: metrics.silenceEverything", "key: metrics.query\n      connection: staging prometheus\n      config: { query: up }"),
    );
    expect((await cli(["validate", "broken"])).code).toBe(0);
    const planned = await cli(["plan", "broken", "--workspace", "Other"]);
    expect(planned.code).toBe(1);
    expect(planned.stderr).toContain('broken/automations/broken.yaml:12:19 No connection named "staging prometheus" in this workspace');
    // Said once, by file position; not again by the request body's path.
    expect(planned.stderr).toContain("Plan failed: 1 problem (listed above)");
    expect(planned.stderr).not.toContain("apps.0.graph");
  }, 120_000);
});
