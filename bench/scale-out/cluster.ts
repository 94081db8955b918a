/**
 * The scale-out cluster of the benchmark: PostgreSQL 15 and Redis 7 started on loopback in temporary
 * directories (db/testing/servers.ts), the bench automation seeded, and `npx conveyor ingress` /
 * `npx conveyor worker` processes started as a user starts them (bin/conveyor.mjs).
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { openStorage, type OpenedStorage } from "@/db/open";
import type { PgBackend } from "@/db/pg/backend";
import { freePort, startPostgres, startRedis, type PgServer, type RedisServer } from "@/db/testing/servers";
import { createSecretBox } from "@/server/crypto/secret-box";
import { depsFromStorage, type AppDeps } from "@/server/deps";
import { silentLogger } from "@/server/logger";
import { spawnRole, until, type ConveyorProcess } from "@/server/roles/testing/processes";
import { threeStepAutomation } from "../harness";
import { postmasterPid } from "./proc-cpu";

/**
 * PostgreSQL as a production install on this kind of machine would be tuned for this load (see
 * docs/scale-out.md, "Tuning PostgreSQL"). Durability stays as shipped: fsync, synchronous_commit
 * and full_page_writes on.
 */
export const PG_SETTINGS: Record<string, string | number> = {
  shared_buffers: "1GB",
  wal_buffers: "16MB",
  max_wal_size: "4GB",
  min_wal_size: "512MB",
  checkpoint_timeout: "15min",
  checkpoint_completion_target: 0.9,
  effective_cache_size: "4GB",
  random_page_cost: 1.1,
  jit: "off",
  max_connections: 200,
  synchronous_commit: "on",
  fsync: "on",
  full_page_writes: "on",
};

export interface Cluster {
  pg: PgServer;
  redis: RedisServer;
  storage: OpenedStorage;
  deps: AppDeps;
  pool: pg.Pool;
  token: string;
  env: Record<string, string>;
  pgPid: number;
  redisPid: number;
  /** One number from SQL. */
  count(sql: string, args?: unknown[]): Promise<number>;
  ingress(): Promise<ConveyorProcess>;
  worker(): Promise<ConveyorProcess>;
  /** pg_stat_statements, when BENCH_SO_PGSS=1 loaded it: the top statements by total time. */
  topStatements(limit?: number): Promise<Array<{ query: string; calls: number; totalMs: number; meanMs: number; rows: number }>>;
  resetStatements(): Promise<void>;
  /** pg_stat_statements: every statement executed since the last reset (BEGIN, COMMIT and SET included). */
  statementCount(): Promise<number>;
  stop(): Promise<void>;
}

export async function startCluster(opts: { pgss?: boolean; profileDir?: string } = {}): Promise<Cluster> {
  const settings = { ...PG_SETTINGS, ...(opts.pgss ? { shared_preload_libraries: "pg_stat_statements", "pg_stat_statements.track": "all" } : {}) };
  const [pgs, redis] = await Promise.all([startPostgres({ durable: true, settings }), startRedis()]);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-sobench-"));
  const key = randomBytes(32);
  const storage = await openStorage(pgs.url, { pg: { max: 4 } });
  const pool = (storage.backend as PgBackend).pool;
  if (opts.pgss) await pool.query("create extension if not exists pg_stat_statements");
  const deps = await depsFromStorage(
    storage,
    { box: createSecretBox(key), publicUrl: "http://127.0.0.1", log: silentLogger, now: () => new Date() },
    { url: redis.url },
  );
  const { token } = await threeStepAutomation(deps);
  const redisPid = Number(/process_id:(\d+)/.exec(execFileSync("redis-cli", ["-p", String(redis.port), "info", "server"], { encoding: "utf8" }))?.[1]);
  const env: Record<string, string> = {
    DATABASE_URL: pgs.url,
    REDIS_URL: redis.url,
    CONVEYOR_SECRET_KEY: key.toString("base64"),
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
    CONVEYOR_DATA_DIR: dataDir,
    CONVEYOR_PUBLIC_URL: "http://127.0.0.1",
    // Keep every finished run (the default prunes beyond 10,000; the bench counts them).
    CONVEYOR_RUN_RETENTION_COUNT: "1000000000",
    LOG_LEVEL: "warn",
    ...(opts.profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${opts.profileDir}` } : {}),
  };
  const procs: ConveyorProcess[] = [];
  const ready = async (role: "ingress" | "worker") => {
    const p = spawnRole(role, await freePort(), env);
    procs.push(p);
    await until(p, `${p.base}/api/health/ready`, (a) => a.status === 200, `${role} ready`, 180_000);
    return p;
  };
  const count = async (sql: string, args: unknown[] = []) => Number((await pool.query<{ n: string }>(sql, args)).rows[0]!.n);
  return {
    pg: pgs,
    redis,
    storage,
    deps,
    pool,
    token,
    env,
    pgPid: postmasterPid(path.join(pgs.dir, "data")),
    redisPid,
    count,
    ingress: () => ready("ingress"),
    worker: () => ready("worker"),
    async topStatements(limit = 12) {
      const r = await pool.query<{ query: string; calls: string; total: number; mean: number; rows: string }>(
        `select query, calls, total_exec_time as total, mean_exec_time as mean, rows from pg_stat_statements order by total_exec_time desc limit $1`,
        [limit],
      );
      return r.rows.map((x) => ({
        query: x.query.replace(/\s+/g, " ").slice(0, 160),
        calls: Number(x.calls),
        totalMs: Math.round(x.total),
        meanMs: Math.round(x.mean * 1000) / 1000,
        rows: Number(x.rows),
      }));
    },
    async statementCount() {
      return count("select coalesce(sum(calls), 0) as n from pg_stat_statements where query not like '%pg_stat_statements%'");
    },
    async resetStatements() {
      await pool.query("select pg_stat_statements_reset()");
    },
    async stop() {
      await Promise.all(procs.map((p) => p.stop()));
      await deps.queue.close();
      await storage.store.close();
      pgs.stop();
      redis.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** wrk against one ingress: distinct alerts (bench/post-distinct.lua); returns accepted, refused and latency percentiles. */
export function wrk(base: string, token: string, o: { seconds: number; threads: number; connections: number; tag: string; bodyFile: string }) {
  return new Promise<{ accepted: number; refused: number; p50ms: number; p90ms: number; p99ms: number }>((resolve, reject) => {
    const p = spawn(
      "wrk",
      [`-t${o.threads}`, `-c${o.connections}`, `-d${o.seconds}s`, "-s", path.join(import.meta.dirname, "..", "post-distinct.lua"), `${base}/hooks/${token}`],
      {
        env: { ...process.env, BODY_FILE: o.bodyFile, TAG: o.tag },
      },
    );
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (out += d));
    p.on("exit", (code) => {
      if (code !== 0) return reject(new Error(out));
      const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? NaN);
      resolve({
        accepted: num(/ACCEPTED (\d+)/),
        refused: num(/OTHER (\d+)/),
        p50ms: num(/P50 ([\d.]+)/),
        p90ms: num(/P90 ([\d.]+)/),
        p99ms: num(/P99 ([\d.]+)/),
      });
    });
  });
}
