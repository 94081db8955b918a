#!/usr/bin/env node
// `npm start`: builds what is missing or older than its sources (the Next.js app: about a minute;
// the server bundle: about a second), then becomes the server: the compiled server is imported into
// this very process (scripts/serve.mjs), so `npm start` leaves npm and one server process. Migrations
// apply on start. Runs under the Node pinned in devDependencies (npm puts node_modules/.bin first on PATH).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);
if (Number(process.versions.node.split(".")[0]) < 22) {
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
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      continue;
    }
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
  const buildStarted = performance.now();
  const r = spawnSync(path.join(root, "node_modules/.bin/next"), ["build"], { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  if (r.status !== 0) process.exit(r.status ?? 1);
  performance.mark("conveyor:built", { detail: performance.now() - buildStarted }); // "ready in N ms" names it apart
}
await import("./serve.mjs");
