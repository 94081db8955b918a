/**
 * Where the REST tests run: in process (default; route modules called with a Request, test deps via
 * setDeps) or over HTTP against the built app (`CONVEYOR_REST_HTTP=1`, build first with
 * `NEXT_DIST_DIR=.next-rest next build`): server/main.ts is started on a free loopback port with a
 * throwaway data dir, and the test seeds through the same SQLite file.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { openStorage } from "@/db/open";
import { testSql, type TestSql } from "@/db/testing";
import { createSecretBox, loadOrCreateKey } from "../../crypto/secret-box";
import { setDeps, depsFromStorage, type AppDeps } from "../../deps";
import { silentLogger } from "../../logger";
import { createTestDeps } from "../../testing";
import { createRestClient, type RestClient } from "./rest-client";

export const OVER_HTTP = process.env.CONVEYOR_REST_HTTP === "1";
const ROOT = path.resolve(import.meta.dirname, "../../..");

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

export interface RestTarget {
  deps: AppDeps;
  api: RestClient;
  /** Raw SQL for assertions on the target's database. */
  sql: TestSql;
  close(): Promise<void>;
}

export async function startRestTarget(extraEnv: Record<string, string> = {}): Promise<RestTarget> {
  if (!OVER_HTTP) {
    const deps = await createTestDeps();
    setDeps(deps);
    return { deps, sql: deps.sql, api: createRestClient({}), close: async () => deps.close() };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-rest-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      CONVEYOR_DATA_DIR: dir,
      CONVEYOR_PUBLIC_URL: base,
      NEXTAUTH_URL: base,
      NEXT_DIST_DIR: process.env.NEXT_DIST_DIR ?? ".next-rest",
      LOG_LEVEL: "warn",
      NEXT_TELEMETRY_DISABLED: "1",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`server did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const storage = await openStorage(path.join(dir, "conveyor.db"));
  const deps: AppDeps = await depsFromStorage(storage, { box: createSecretBox(loadOrCreateKey(dir)), publicUrl: base, log: silentLogger, now: () => new Date() });
  return {
    deps,
    sql: testSql(storage),
    api: createRestClient({ baseUrl: base }),
    close: async () => {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      await storage.store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
