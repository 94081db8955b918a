/**
 * Shared pieces of the history benches (bench/history.ts, bench/prune.ts): a backend to measure
 * (SQLite file as `npm start` opens it, or a real PostgreSQL 15 server with durable settings plus
 * Redis for the queue), a workspace layout seeded through the services, the REST door called in
 * process (the route modules of app/api/v1 with a Request, as Next.js calls them), on-disk sizes and
 * the query plans of what a call ran.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { openStorage, type OpenedStorage } from "@/db/open";
import type { PgBackend } from "@/db/pg/backend";
import { startPostgres, startRedis } from "@/db/testing/servers";
import type { HistoryPlan } from "@/db/testing/history";
import { createSecretBox } from "@/server/crypto/secret-box";
import { silentLogger } from "@/server/logger";
import { depsFromStorage, setDeps, type AppDeps } from "@/server/deps";
import { seedRest } from "@/server/rest/testing/seed";
import { createWorkspace } from "@/server/services/workspaces/create-workspace";
import { createAutomation } from "@/server/services/automations";

export type BackendName = "sqlite" | "postgres";
const ROOT = path.resolve(import.meta.dirname, "..");

export interface Bench {
  backend: BackendName;
  storage: OpenedStorage;
  deps: AppDeps;
  /** Raw SQL (bench only): `?` placeholders. */
  sql<T = Record<string, unknown>>(q: string, ...params: unknown[]): Promise<T[]>;
  close(): Promise<void>;
  /** SQLite file path. */
  file?: string;
}

export async function openBench(backend: BackendName, now: () => Date = () => new Date()): Promise<Bench> {
  // The bench calls far faster than the per-key rate limit allows.
  process.env.CONVEYOR_API_RATE_LIMIT = "1000000000";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-history-bench-"));
  const box = createSecretBox(randomBytes(32));
  if (backend === "sqlite") {
    const file = path.join(dir, "conveyor.db");
    // As `npm start` opens it: WAL, synchronous NORMAL, checkpoints on a background thread.
    const storage = await openStorage(file, { checkpoint: true });
    const deps = await depsFromStorage(storage, { box, publicUrl: "http://127.0.0.1", log: silentLogger, now });
    const c = storage.sqlite!.$client;
    return {
      backend,
      storage,
      deps,
      file,
      sql: async (q, ...p) => {
        const st = c.prepare(q);
        return (st.reader ? st.all(...p) : (st.run(...p), [])) as never;
      },
      close: async () => {
        await deps.queue.close?.();
        await storage.store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  // Durable: fsync, synchronous_commit and full-page writes on (PostgreSQL's defaults).
  const pg = await startPostgres({ durable: true });
  const redis = await startRedis();
  const storage = await openStorage(pg.url, { pg: { max: 10 } });
  const deps = await depsFromStorage(storage, { box, publicUrl: "http://127.0.0.1", log: silentLogger, now }, { url: redis.url, prefix: "bench" });
  const pool = (storage.backend as PgBackend).pool;
  return {
    backend,
    storage,
    deps,
    sql: async (q, ...p) => {
      let i = 0;
      return (
        await pool.query(
          q.replace(/\?/g, () => `$${++i}`),
          p,
        )
      ).rows as never;
    },
    close: async () => {
      await deps.queue.close?.();
      await storage.store.close();
      pg.stop();
      redis.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Four workspaces with five automations each (trigger → filter → HTTP call → HTTP call), an admin API key. */
export async function seedLayout(b: Bench, perWorkspace = 5, workspaces = 4) {
  setDeps(b.deps);
  const s = await seedRest(b.deps);
  const wsIds = [s.ws];
  for (let i = 1; i < workspaces; i++) wsIds.push((await createWorkspace(b.deps, s.owner, { name: `Team ${i}` })).id);
  const automations: HistoryPlan["automations"] = [];
  for (const ws of wsIds) {
    for (let i = 0; i < perWorkspace; i++) {
      const graph = {
        nodes: [
          { id: "trigger", name: "alert", key: "core.webhook", config: {} },
          { id: "gate", name: "onlyFiring", key: "core.filter", config: { condition: "{{ $trigger.data.body.status = 'firing' }}" } },
          { id: "enrich", name: "lookUpOwner", key: "core.http", config: { method: "GET", url: "https://cmdb.example/api/services" } },
          { id: "create", name: "openTicket", key: "core.http", config: { method: "POST", url: "https://tracker.example/rest/api/2/issue" } },
        ],
        edges: [
          { from: "trigger", to: "gate" },
          { from: "gate", to: "enrich" },
          { from: "enrich", to: "create" },
        ],
      };
      const a = await createAutomation(b.deps, s.owner, ws, { name: `Alerts ${i}`, enabled: false, graph });
      automations.push({ id: a.id, workspaceId: ws, version: a.version });
    }
  }
  return { key: s.keys.admin, workspaces: wsIds, automations, owner: s.owner };
}

type RouteModule = Record<string, (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>>;
const modules = new Map<string, Promise<RouteModule>>();

/** GET through the REST door in process: `route` is the app/api/v1 folder path with [params]. */
export async function restGet(
  key: string,
  route: string,
  params: Record<string, string>,
  query: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  let mod = modules.get(route);
  if (!mod) modules.set(route, (mod = import(path.join(ROOT, "app/api/v1", route, "route.ts")) as Promise<RouteModule>));
  const urlPath = route.replace(/\[(\w+)\]/g, (_, k: string) => params[k]!);
  const url = `http://127.0.0.1/api/v1/${urlPath}?${new URLSearchParams(query)}`;
  const res = await (await mod).GET!(new Request(url, { headers: { authorization: `Bearer ${key}` } }), { params: Promise.resolve(params) });
  return { status: res.status, body: await res.json() };
}

export const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0);

/** p50/p99 of `n` calls (after `warm` unmeasured ones); every call must answer 200. */
export async function timeCalls(n: number, call: (i: number) => Promise<{ status: number; body: unknown }>, warm = 10) {
  for (let i = 0; i < warm; i++) await call(i);
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await call(i);
    ms.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`status ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
  }
  ms.sort((a, b) => a - b);
  return { n, p50ms: +pct(ms, 50).toFixed(2), p99ms: +pct(ms, 99).toFixed(2), maxMs: +ms[ms.length - 1]!.toFixed(2) };
}

/** Folds the WAL into the SQLite file (retried while the background checkpointer holds it). */
export async function checkpoint(b: Bench): Promise<void> {
  if (b.backend !== "sqlite") return;
  for (let i = 0; i < 20; i++) {
    const [r] = await b.sql<{ busy: number }>("pragma wal_checkpoint(truncate)");
    if (!r?.busy) return;
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** Bytes on disk: SQLite main file + WAL; PostgreSQL the history tables with their indexes and TOAST, and the whole database. */
export async function diskBytes(b: Bench): Promise<Record<string, number>> {
  if (b.backend === "sqlite") {
    const size = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
    const [fl] = await b.sql<{ n: number }>("pragma freelist_count");
    const [ps] = await b.sql<{ n: number }>("pragma page_size");
    const free = Number(Object.values(fl ?? {})[0] ?? 0) * Number(Object.values(ps ?? {})[0] ?? 4096);
    return { file: size(b.file!), wal: size(`${b.file}-wal`), total: size(b.file!) + size(`${b.file}-wal`), freePages: free };
  }
  const rel = async (t: string) => Number((await b.sql<{ n: string }>(`select pg_total_relation_size('${t}') as n`))[0]!.n);
  const out: Record<string, number> = {};
  for (const t of ["runs", "run_steps", "events", "usage_counters"]) out[t] = await rel(t);
  out.total = out.runs! + out.run_steps! + out.events!;
  out.database = Number((await b.sql<{ n: string }>("select pg_database_size(current_database()) as n"))[0]!.n);
  return out;
}

/**
 * The statements `fn` ran, with their plans: SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN
 * (ANALYZE) with the same parameters. Statements on tables outside `tables` are left out.
 */
export async function plansOf(
  b: Bench,
  fn: () => Promise<unknown>,
  tables = /\b(runs|run_steps|events|jobs|usage_counters)\b/,
): Promise<Array<{ sql: string; plan: string[] }>> {
  const seen: Array<{ sql: string; params: unknown[] }> = [];
  let restore: () => void;
  if (b.backend === "sqlite") {
    const c = b.storage.sqlite!.$client;
    const orig = c.prepare;
    c.prepare = function (this: typeof c, src: string) {
      const st = orig.call(this, src);
      for (const m of ["all", "get", "run", "iterate"] as const) {
        const f = (st as any)[m];
        (st as any)[m] = (...args: unknown[]) => {
          seen.push({ sql: src, params: args });
          return f.apply(st, args);
        };
      }
      return st;
    } as typeof c.prepare;
    restore = () => (c.prepare = orig);
  } else {
    const pool = (b.storage.backend as PgBackend).pool;
    const orig = pool.query;
    (pool as any).query = function (this: unknown, q: any, v?: unknown[]) {
      const text = typeof q === "string" ? q : q.text;
      seen.push({ sql: text, params: (typeof q === "string" ? v : (q.values ?? v)) ?? [] });
      return (orig as any).call(pool, q, v);
    };
    restore = () => ((pool as any).query = orig);
  }
  try {
    await fn();
  } finally {
    restore();
  }
  const out: Array<{ sql: string; plan: string[] }> = [];
  for (const s of seen) {
    if (!tables.test(s.sql) || !/^\s*(select|delete|update|with)/i.test(s.sql)) continue;
    if (b.backend === "sqlite") {
      const rows = b.storage.sqlite!.$client.prepare(`explain query plan ${s.sql}`).all(...(s.params as never[])) as Array<{ detail: string }>;
      out.push({ sql: s.sql, plan: rows.map((r) => r.detail) });
    } else {
      const pool = (b.storage.backend as PgBackend).pool;
      const client = await pool.connect();
      try {
        await client.query("begin");
        const rows = (await client.query(`explain (analyze, costs off, summary off) ${s.sql}`, s.params as unknown[])).rows as Array<Record<string, string>>;
        out.push({ sql: s.sql, plan: rows.map((r) => Object.values(r)[0]!) });
      } finally {
        await client.query("rollback").catch(() => undefined);
        client.release();
      }
    }
  }
  return out;
}

/** Plan lines that read a whole history table or index (SQLite SCAN, PostgreSQL Seq Scan): the thing to look for. */
export function scans(plans: Array<{ plan: string[] }>): string[] {
  return plans.flatMap((p) =>
    p.plan.filter((l) => /^\s*(->\s*)?(SCAN (runs|run_steps|events|usage_counters)|Seq Scan on (runs|run_steps|events|usage_counters)\b)/.test(l)),
  );
}
