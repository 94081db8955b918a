/**
 * Starts the built app (`npm start`'s server: Next.js + runner + ingress in one process) on a
 * throwaway data dir with an owner and an admin API key, for benches that need the whole server.
 * Needs a production build in NEXT_DIST_DIR (default .next).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");

export function hasBuild(): boolean {
  return fs.existsSync(path.join(root, process.env.NEXT_DIST_DIR ?? ".next", "BUILD_ID"));
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(url: string, ms: number) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${url} did not come up`);
}

export interface StartedApp {
  base: string;
  email: string;
  password: string;
  apiKey: string;
  workspaceId: string;
  /** The server's process id (its RSS is read from /proc). */
  pid: number;
  stop(): void;
}

export async function startApp(name: string, extraEnv: Record<string, string> = {}): Promise<StartedApp> {
  // extraEnv.NEXT_DIST_DIR picks another build (the editor bench measures the previous one beside this one).
  const distDir = extraEnv.NEXT_DIST_DIR ?? process.env.NEXT_DIST_DIR ?? ".next";
  if (!fs.existsSync(path.join(root, distDir, "BUILD_ID"))) throw new Error(`no build in ${distDir}: run \`npm run build\` first`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `conveyor-${name}-bench-`));
  // BENCH_PORT pins the port (a shared machine hands each engineer a range); a free one otherwise.
  const port = process.env.BENCH_PORT ? Number(process.env.BENCH_PORT) : await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { ...process.env, CONVEYOR_DATA_DIR: dataDir, LOG_LEVEL: "silent", ...extraEnv };
  const cli = (args: string[]) => execFileSync(process.execPath, ["bin/conveyor.mjs", ...args], { cwd: root, env, encoding: "utf8" }).trim();
  const email = "bench@example.test";
  const password = "bench password 123";
  const workspaceId = cli(["owner", "create", "--email", email, "--password", password, "--name", "Bench"]).split("\n").pop()!;
  const apiKey = cli(["keys", "create", "--name", "bench", "--role", "admin"]).split("\n").pop()!;
  // What npm start runs (the compiled server), with the same V8 flag.
  const child: ChildProcess = spawn(process.execPath, ["--max-semi-space-size=16", "scripts/serve.mjs"], {
    cwd: root,
    env: {
      ...env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      CONVEYOR_PUBLIC_URL: base,
      NEXTAUTH_URL: base,
      NEXT_DIST_DIR: distDir,
      NEXT_TELEMETRY_DISABLED: "1",
    },
    stdio: "ignore",
  });
  await waitFor(`${base}/api/health`, 120_000);
  return {
    base,
    email,
    password,
    apiKey,
    workspaceId,
    pid: child.pid!,
    stop: () => {
      child.kill("SIGTERM");
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
