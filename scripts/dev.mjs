#!/usr/bin/env node
// `npm run dev`: the same server as `npm start`, with Next in development mode (hot reload).
import { spawn } from "node:child_process";
import fs from "node:fs";
// Settings from ./.env (see .env.example); variables already set in the environment win.
if (fs.existsSync(".env")) process.loadEnvFile(".env");
const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts", "--dev"], {
  stdio: "inherit",
  env: { NODE_ENV: "development", NEXT_TELEMETRY_DISABLED: "1", ...process.env },
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code) => process.exit(code ?? 0));
