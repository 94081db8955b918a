#!/usr/bin/env node
// `npm start`: build when there is no build or the sources changed since, then run the server
// (migrations apply on start). Runs under the Node pinned in devDependencies (npm puts
// node_modules/.bin first on PATH).
import { spawnSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
process.chdir(root);
const major = Number(process.versions.node.split(".")[0]);
if (major < 22) {
  console.error(`Conveyor needs Node 24 (found ${process.version}). Run it through npm (npm start) so the pinned Node is used.`);
  process.exit(1);
}
// Settings from ./.env (see .env.example); variables already set in the environment win.
if (fs.existsSync(path.join(root, ".env"))) process.loadEnvFile(path.join(root, ".env"));
const distDir = process.env.NEXT_DIST_DIR ?? ".next";
const buildId = path.join(root, distDir, "BUILD_ID");

function newestMtime(dir) {
  let newest = 0;
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop();
    let entries;
    try { entries = fs.readdirSync(d, { withFileTypes: true }); } catch { continue; }
    for (const e of entries) {
      if (e.name === "node_modules" || e.name.startsWith(".next") || e.name === "data") continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (/\.(tsx?|css|json|mjs)$/.test(e.name)) newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  }
  return newest;
}

const sources = ["app", "components", "server", "integrations", "db", "public"].map((d) => path.join(root, d));
const builtAt = fs.existsSync(buildId) ? fs.statSync(buildId).mtimeMs : 0;
const stale = !builtAt || Math.max(...sources.map(newestMtime), fs.statSync(path.join(root, "package.json")).mtimeMs) > builtAt;
if (stale) {
  console.log(builtAt ? "Sources changed since the last build: building…" : "No build yet: building (about a minute)…");
  const r = spawnSync(path.join(root, "node_modules/.bin/next"), ["build"], { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
const child = spawn(process.execPath, ["--max-semi-space-size=16", "--import", "tsx", "server/main.ts"], {
  stdio: "inherit",
  env: { NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...process.env },
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code) => process.exit(code ?? 0));
