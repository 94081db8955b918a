#!/usr/bin/env node
/**
 * Runs the compiled server (dist/server/main.mjs) in this process: builds the server bundle first
 * when it is missing or older than its sources (about a second), never the Next.js app (that is
 * `npm run build`, or `npm start`, which checks both). Used by `npm start` (through start.mjs),
 * Playwright's webServer, the REST-over-HTTP harness and the benches. Production defaults:
 * NODE_ENV=production, telemetry off; ./.env is loaded (variables already set win).
 */
import fs from "node:fs";
import module from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ensureServerBundle, SERVER_DIST } from "./build-server.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
if (Number(process.versions.node.split(".")[0]) < 22) {
  console.error(`Conveyor needs Node 24 (found ${process.version}). Run it through npm (npm start) so the pinned Node is used.`);
  process.exit(1);
}
process.chdir(root);
if (fs.existsSync(path.join(root, ".env"))) process.loadEnvFile(path.join(root, ".env"));
process.env.NODE_ENV ||= "production";
process.env.NEXT_TELEMETRY_DISABLED ||= "1";
// V8's compiled code for every module loaded from here on (Next.js, the bundle, dependencies) is kept
// on disk and reused by the next start (NODE_COMPILE_CACHE overrides where; NODE_DISABLE_COMPILE_CACHE=1 turns it off).
module.enableCompileCache?.(process.env.NODE_COMPILE_CACHE ?? path.join(root, "dist", ".compile-cache"));
// A build made by this process (the Next.js app in start.mjs, the server bundle here) is marked with its
// duration: the "ready in N ms" line (server/main.ts) counts from the last mark and names the builds apart.
const serverBuildStarted = performance.now();
if (await ensureServerBundle()) performance.mark("conveyor:built", { detail: performance.now() - serverBuildStarted });
await import(pathToFileURL(path.join(SERVER_DIST, "main.mjs")).href);
