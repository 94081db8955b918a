#!/usr/bin/env node
// `npm test`: system packages (when missing) → vitest (unit + integration, real SQLite, real
// Prometheus/Alertmanager, fake Atlassian) → the same suite again on PostgreSQL 15 + Redis 7 (the
// scale-out backends, started by the tests from the Debian packages) → next build → the REST suites
// over HTTP against the built app on both backends → Playwright e2e in Debian Chromium. After the
// PostgreSQL pass, the chaos suite (2 ingress + 3 runners under kills and outages, `npm run chaos`).
// Ends with one line `N passed, N failed` and a non-zero exit code on any failure.
//   SKIP_E2E=1 npm test      unit/integration only
//   SKIP_PG=1 npm test       SQLite only (skips the PostgreSQL + Redis pass and the chaos suite)
//   SKIP_CHAOS=1 npm test    skips the chaos suite (chaos/, `npm run chaos`: about 6 minutes)
//   npm test -- path/filter  passes filters to vitest and skips e2e
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
process.chdir(root);
const bin = (name) => path.join(root, "node_modules", ".bin", name);
const env = {
  ...process.env,
  NEXT_TELEMETRY_DISABLED: "1",
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1",
  PATH: `${path.join(root, "node_modules/.bin")}:${process.env.PATH}`,
};
const filters = process.argv.slice(2);
const out = path.join(root, ".ci-out");
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

if (Number(process.versions.node.split(".")[0]) < 22) {
  console.error(`Tests need Node 24 (found ${process.version}); run them with npm test.`);
  process.exit(1);
}

const t0 = Date.now();
const run = (cmd, args, extraEnv = {}) => {
  console.log(`\n▶ ${path.basename(cmd)} ${args.join(" ")}`);
  return spawnSync(cmd, args, { stdio: "inherit", env: { ...env, ...extraEnv } }).status ?? 1;
};
const failures = [];

if (run("bash", ["scripts/ensure-system-deps.sh"]) !== 0) failures.push("system packages");

const vitestCode = run(bin("vitest"), ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${path.join(out, "vitest.json")}`, ...filters]);
if (vitestCode !== 0) failures.push("vitest");
const pg = !process.env.SKIP_PG;
if (pg) {
  const pgCode = run(bin("vitest"), ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${path.join(out, "vitest-pg.json")}`, ...filters], {
    CONVEYOR_TEST_BACKEND: "postgres",
  });
  if (pgCode !== 0) failures.push("vitest on PostgreSQL");
}

// The chaos suite: real processes under kills and outages (chaos/chaos.test.ts), alone on the machine.
const chaos = pg && !filters.length && !process.env.SKIP_CHAOS;
if (chaos) {
  const chaosCode = run(bin("vitest"), [
    "run",
    "--config",
    "chaos/vitest.config.ts",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${path.join(out, "vitest-chaos.json")}`,
  ]);
  if (chaosCode !== 0) failures.push("chaos suite");
}

const e2e = !filters.length && !process.env.SKIP_E2E;
if (e2e) {
  if (run(bin("next"), ["build"]) !== 0) failures.push("next build");
  else {
    // The REST suites once more, over HTTP against the built app (server/main.ts on a loopback port),
    // and the tests that need the built app: the process roles next to the built web process
    // (server/roles/embedded.test.ts), the web process's stop after a rebuild (server/web-stop.test.ts).
    const restSuites = [
      "server/rest/resources.test.ts",
      "server/rest/apps.test.ts",
      "server/rest/connections.test.ts",
      "server/rest/runs-recovery.test.ts",
      "server/roles/embedded.test.ts",
      "server/rest/as-code.test.ts",
      "server/web-stop.test.ts",
    ];
    const httpCode = run(
      bin("vitest"),
      ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${path.join(out, "vitest-http.json")}`, ...restSuites],
      { CONVEYOR_REST_HTTP: "1", NEXT_DIST_DIR: ".next" },
    );
    if (httpCode !== 0) failures.push("REST over HTTP");
    if (pg) {
      const httpPgCode = run(
        bin("vitest"),
        ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${path.join(out, "vitest-http-pg.json")}`, ...restSuites],
        { CONVEYOR_REST_HTTP: "1", NEXT_DIST_DIR: ".next", CONVEYOR_TEST_BACKEND: "postgres" },
      );
      if (httpPgCode !== 0) failures.push("REST over HTTP on PostgreSQL");
    }
    const code = run(bin("playwright"), ["test", "--reporter=list,json"], { PLAYWRIGHT_JSON_OUTPUT_NAME: path.join(out, "playwright.json"), CI: "true" });
    if (code !== 0) failures.push("playwright");
  }
}

let passed = 0,
  failed = 0,
  skipped = 0;
for (const [file, required] of [
  ["vitest.json", true],
  ["vitest-pg.json", pg],
  ["vitest-chaos.json", chaos],
  ["vitest-http.json", false],
  ["vitest-http-pg.json", false],
]) {
  const full = path.join(out, file);
  if (!required && !fs.existsSync(full)) continue;
  try {
    const v = JSON.parse(fs.readFileSync(full, "utf8"));
    passed += v.numPassedTests;
    failed += v.numFailedTests;
    skipped += (v.numPendingTests ?? 0) + (v.numTodoTests ?? 0);
    if (v.numFailedTestSuites && !v.numFailedTests) failed += v.numFailedTestSuites; // a file that failed to load
  } catch {
    failures.push(`${file} (no report)`);
    failed += 1;
  }
}
if (e2e && !failures.includes("next build")) {
  try {
    const p = JSON.parse(fs.readFileSync(path.join(out, "playwright.json"), "utf8"));
    passed += p.stats.expected + (p.stats.flaky ?? 0);
    failed += p.stats.unexpected;
    skipped += p.stats.skipped;
  } catch {
    failed += 1;
  }
}
if (failures.length) console.log(`\nFailed steps: ${failures.join(", ")}`);
console.log(`\nTest time ${Math.round((Date.now() - t0) / 1000)} s`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failures.length || failed ? 1 : 0);
