#!/usr/bin/env -S node --max-semi-space-size=16
// `npx conveyor …` in a checkout: runs the compiled CLI (dist/server/cli.mjs, built from
// server/cli/main.ts when missing or older than its sources, in about a second) in this process, from
// the checkout's root (relative paths such as the default ./data are relative to the checkout).
import fs from "node:fs";
import module from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
if (Number(process.versions.node.split(".")[0]) < 22) {
  console.error(`conveyor needs Node 24 (found ${process.version}); run it with npx or npm run so the pinned Node is used.`);
  process.exit(1);
}
// Paths given to export/validate/plan/apply are relative to where the user ran the command.
process.env.CONVEYOR_CWD ??= process.cwd();
process.chdir(root);
// Settings from ./.env (see .env.example); variables already set in the environment win.
if (fs.existsSync(path.join(root, ".env"))) process.loadEnvFile(path.join(root, ".env"));
module.enableCompileCache?.(process.env.NODE_COMPILE_CACHE ?? path.join(root, "dist", ".compile-cache"));
const { ensureServerBundle, SERVER_DIST } = await import("../scripts/build-server.mjs");
await ensureServerBundle();
await import(pathToFileURL(path.join(SERVER_DIST, "cli.mjs")).href);
