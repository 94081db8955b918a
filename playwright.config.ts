/**
 * End-to-end tests: the built app (`npm run build` output) served by the compiled server on a throwaway
 * data dir, driven in Debian's Chromium (/usr/bin/chromium; Playwright's own browser download is
 * impossible here). The `setup` project performs the owner set-up through the browser and saves
 * the signed-in state + seeds (e2e/.auth/) that the other specs use.
 */
import { defineConfig } from "@playwright/test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const PORT = Number(process.env.E2E_PORT ?? 3217);
const BASE = `http://127.0.0.1:${PORT}`;
// Evaluated in the runner and again in each worker: the runner creates the dir, workers inherit it.
process.env.E2E_DATA_DIR ||= fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-e2e-"));
const DATA_DIR = process.env.E2E_DATA_DIR;

export default defineConfig({
  testDir: "./e2e",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [["list"], ["json", { outputFile: ".ci-out/playwright.json" }]] : [["list"]],
  use: {
    baseURL: BASE,
    browserName: "chromium",
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    viewport: { width: 1280, height: 800 },
    permissions: ["clipboard-read", "clipboard-write"],
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--headless",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  projects: [
    { name: "setup", testMatch: /auth\.setup\.ts/ },
    { name: "chromium", testMatch: /.*\.spec\.ts/, dependencies: ["setup"], use: { storageState: "e2e/.auth/owner.json" } },
  ],
  webServer: {
    // The compiled server (scripts/serve.mjs builds dist/server first when its sources changed).
    command: `${JSON.stringify(process.execPath)} --max-semi-space-size=16 scripts/serve.mjs`,
    url: `${BASE}/api/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      NODE_ENV: "production",
      PORT: String(PORT),
      HOST: "127.0.0.1",
      CONVEYOR_DATA_DIR: DATA_DIR,
      CONVEYOR_PUBLIC_URL: BASE,
      NEXTAUTH_URL: BASE,
      NEXT_DIST_DIR: process.env.NEXT_DIST_DIR ?? ".next",
      LOG_LEVEL: "warn",
      NEXT_TELEMETRY_DISABLED: "1",
    },
  },
});
