/**
 * Where the REST tests run: in process (default; route modules called with a Request, test deps via
 * setDeps) or over HTTP against the built app (`CONVEYOR_REST_HTTP=1`, build first with
 * `NEXT_DIST_DIR=.next-rest next build`): the compiled server (scripts/serve.mjs) is started on a free loopback port against
 * the test's own database, which the test seeds through its store. The database is the test
 * backend's: a migrated SQLite file, or (CONVEYOR_TEST_BACKEND=postgres) a PostgreSQL database
 * cloned from the migrated template, in which case the server runs in scale-out mode (DATABASE_URL,
 * REDIS_URL from the test Redis, a shared CONVEYOR_SECRET_KEY and NEXTAUTH_SECRET).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import net from "node:net";
import path from "node:path";
import { createSecretBox } from "../../crypto/secret-box";
import { setDeps } from "../../deps";
import { createTestDeps, type TestDeps } from "../../testing";
import type { TestSql } from "@/db/testing";
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
  deps: TestDeps;
  api: RestClient;
  /** Raw SQL for assertions on the target's database. */
  sql: TestSql;
  close(): Promise<void>;
}

/** Environment of the server process: the test's database, and in scale-out mode what every process must share. */
export function serverEnv(
  deps: Pick<TestDeps, "store" | "url" | "dir">,
  opts: { port: number; secretKey: Buffer; extra?: Record<string, string> },
): NodeJS.ProcessEnv {
  const base = `http://127.0.0.1:${opts.port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(opts.port),
    HOST: "127.0.0.1",
    CONVEYOR_DATA_DIR: deps.dir,
    DATABASE_URL: deps.url,
    CONVEYOR_SECRET_KEY: opts.secretKey.toString("base64"),
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
    CONVEYOR_PUBLIC_URL: base,
    NEXTAUTH_URL: base,
    NEXT_DIST_DIR: process.env.NEXT_DIST_DIR ?? ".next-rest",
    LOG_LEVEL: "warn",
    NEXT_TELEMETRY_DISABLED: "1",
  };
  delete env.AUTH_SECRET;
  delete env.REDIS_URL;
  if (deps.store.dialect === "postgres") {
    const redis = process.env.CONVEYOR_TEST_REDIS_URL;
    if (!redis) throw new Error("CONVEYOR_TEST_REDIS_URL is not set: run the PostgreSQL tests with CONVEYOR_TEST_BACKEND=postgres (vitest global setup)");
    env.REDIS_URL = redis;
    // Test files run in parallel on one Redis: each database gets its own queue (every process of it the same).
    env.CONVEYOR_QUEUE_PREFIX = `cv-${createHash("sha256").update(deps.url).digest("hex").slice(0, 16)}`;
  }
  return { ...env, ...opts.extra };
}

export async function startRestTarget(extraEnv: Record<string, string> = {}): Promise<RestTarget> {
  if (!OVER_HTTP) {
    const deps = await createTestDeps();
    setDeps(deps);
    return { deps, sql: deps.sql, api: createRestClient({}), close: async () => deps.close() };
  }
  const secretKey = randomBytes(32);
  // A free port can be taken by another test file's process before this server binds it: the server
  // then exits (EADDRINUSE) and another process would answer /api/health. So wait for this server's own
  // "ready on …:port" line, and try another port when the bind fails.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const deps = await createTestDeps({ box: createSecretBox(secretKey), publicUrl: base });
    let child: ChildProcess | undefined;
    try {
      // The compiled server, as `npm start` runs it (scripts/serve.mjs rebuilds dist/server when stale).
      child = spawn(process.execPath, ["scripts/serve.mjs"], {
        cwd: ROOT,
        env: serverEnv(deps, { port, secretKey, extra: extraEnv }),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout!.on("data", (d) => (output += d));
      child.stderr!.on("data", (d) => (output += d));
      const ready = new RegExp(`ready on http://\\S+:${port} `);
      const deadline = Date.now() + 60_000;
      for (;;) {
        if (child.exitCode !== null) throw Object.assign(new Error(`server exited: ${output}`), { portTaken: /EADDRINUSE/.test(output) });
        if (ready.test(output)) {
          try {
            if ((await fetch(`${base}/api/health`)).ok) break;
          } catch {
            /* not yet */
          }
        }
        if (Date.now() > deadline) throw new Error(`server did not start: ${output}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    } catch (e) {
      await stop(child);
      await deps.close();
      if ((e as { portTaken?: boolean }).portTaken && attempt < 3) continue;
      throw e;
    }
    return {
      deps,
      sql: deps.sql,
      api: createRestClient({ baseUrl: base }),
      close: async () => {
        await stop(child);
        await deps.close();
      },
    };
  }
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}
