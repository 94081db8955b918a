/**
 * A second Conveyor, in scale-out mode, for the specs that need to take PostgreSQL away from a running
 * app: its own PostgreSQL 15 and Redis 7 (db/testing/servers.ts) and the compiled server
 * (scripts/serve.mjs, the same build as Playwright's webServer) on E2E_PORT + 1.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startPostgres, startRedis, type PgServer, type RedisServer } from "../../db/testing/servers";
import { childEnv } from "../../server/roles/testing/processes";

export interface ScaleOutApp {
  base: string;
  pg: PgServer;
  output(): string;
  stop(): Promise<void>;
}

export async function startScaleOutApp(): Promise<ScaleOutApp> {
  const port = Number(process.env.E2E_PORT ?? 3217) + 1;
  const base = `http://127.0.0.1:${port}`;
  const [pg, redis]: [PgServer, RedisServer] = await Promise.all([startPostgres(), startRedis()]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-e2e-scale-"));
  const child: ChildProcess = spawn(process.execPath, ["scripts/serve.mjs"], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    env: childEnv({
      PORT: String(port),
      DATABASE_URL: pg.url,
      REDIS_URL: redis.url,
      CONVEYOR_DATA_DIR: dir,
      CONVEYOR_PUBLIC_URL: base,
      NEXTAUTH_URL: base,
      CONVEYOR_SECRET_KEY: randomBytes(32).toString("base64"),
      NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
      NEXT_DIST_DIR: process.env.NEXT_DIST_DIR ?? ".next",
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const keep = (d: Buffer) => (out = (out + d.toString()).slice(-20_000));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
    pg.stop();
    redis.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`the scale-out app exited (${child.exitCode}):\n${out}`);
    }
    const ok = await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the scale-out app did not answer /api/health:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { base, pg, output: () => out, stop };
}
