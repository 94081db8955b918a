#!/usr/bin/env node
// `npx conveyor …` in a checkout: runs server/cli/main.ts with tsx from the checkout's root
// (relative paths such as the default ./data are relative to the checkout).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
if (Number(process.versions.node.split(".")[0]) < 22) {
  console.error(`conveyor needs Node 24 (found ${process.version}); run it with npx or npm run so the pinned Node is used.`);
  process.exit(1);
}
// Settings from ./.env (see .env.example); variables already set in the environment win.
if (fs.existsSync(path.join(root, ".env"))) process.loadEnvFile(path.join(root, ".env"));
const child = spawn(process.execPath, ["--max-semi-space-size=16", "--import", "tsx", path.join(root, "server/cli/main.ts"), ...process.argv.slice(2)], {
  cwd: root,
  // Paths given to export/validate/plan/apply are relative to where the user ran the command.
  env: { ...process.env, CONVEYOR_CWD: process.env.CONVEYOR_CWD ?? process.cwd() },
  stdio: "inherit",
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
