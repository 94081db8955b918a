/** Seeds shared by the e2e specs (written by auth.setup.ts). */
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";

export const AUTH_DIR = path.join(process.cwd(), "e2e", ".auth");
export const OWNER_STATE = path.join(AUTH_DIR, "owner.json");
const SEED_FILE = path.join(AUTH_DIR, "seed.json");

export interface Seed {
  email: string;
  password: string;
  workspaceId: string;
  /** Admin API key for the e2e data dir. */
  apiKey: string;
}

export function writeSeed(seed: Seed): void {
  fs.mkdirSync(AUTH_DIR, { recursive: true });
  fs.writeFileSync(SEED_FILE, JSON.stringify(seed, null, 2));
}

export function readSeed(): Seed {
  return JSON.parse(fs.readFileSync(SEED_FILE, "utf8")) as Seed;
}

/** Runs the CLI against the e2e server's data dir (SQLite WAL allows it while the server runs). */
export function cli(args: string[]): string {
  return execFileSync(process.execPath, ["bin/conveyor.mjs", ...args], {
    env: { ...process.env, CONVEYOR_DATA_DIR: process.env.E2E_DATA_DIR!, LOG_LEVEL: "silent" },
    encoding: "utf8",
  }).trim();
}
