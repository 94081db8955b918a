/** Shared bench set-up: a fresh data dir, deps, a workspace, an enabled webhook automation. */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { openStorage } from "@/db/open";
import { createSecretBox } from "@/server/crypto/secret-box";
import { silentLogger } from "@/server/logger";
import { depsFromStorage, type AppDeps } from "@/server/deps";
import { seedWorkspace } from "@/server/runner/testing/seed";
import { createAutomation } from "@/server/services/automations";
import { createConnection } from "@/server/services/connections";
import { handleHookRequest } from "@/server/webhooks/lean-listener";
import { env } from "@/server/env";
import { startProcessMemoryReducer } from "@/server/memory-reducer";

export const BODY = fs.readFileSync(path.join(import.meta.dirname, "fixtures", "alertmanager-webhook.json"));

export async function benchDeps(synchronous: "NORMAL" | "FULL" = "NORMAL") {
  // The server's memory settings (server/main.ts): V8's heap growing factor and giving memory back once idle.
  startProcessMemoryReducer(env);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-bench-"));
  // As the server opens it (server/deps.ts): WAL checkpoints on a background thread unless BENCH_CHECKPOINTER=0.
  const storage = await openStorage(path.join(dir, "bench.db"), { synchronous, checkpoint: process.env.BENCH_CHECKPOINTER !== "0" });
  // Bench-only access to the SQLite connection (pragmas to compare, counters of the grouped commits).
  const db = storage.sqlite!;
  if (process.env.BENCH_PRAGMAS) for (const p of process.env.BENCH_PRAGMAS.split(";")) db.$client.pragma(p);
  const deps: AppDeps = await depsFromStorage(storage, {
    box: createSecretBox(randomBytes(32)),
    publicUrl: "http://127.0.0.1",
    log: silentLogger,
    now: () => new Date(),
  });
  return {
    deps,
    db,
    file: path.join(dir, "bench.db"),
    dir,
    close: async () => {
      await storage.store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Enabled automation: a trigger → 3 core.filter steps (expressions against the Alertmanager body).
 * `core.webhook` (the default) hands the whole body on; `metrics.onAlert` starts one run per alert
 * (deduplicated by fingerprint, status and start).
 */
export async function threeStepAutomation(deps: AppDeps, steps = 3, trigger: "core.webhook" | "metrics.onAlert" = "core.webhook") {
  const ws = await seedWorkspace(deps);
  const alert = trigger === "metrics.onAlert";
  // The trigger needs a Prometheus & Alertmanager connection (never called: ingest only reads its settings).
  const connectionId = alert
    ? (await createConnection(deps, ws.actor, ws.workspaceId, { integration: "metrics", name: "bench", config: { metricsBaseUrl: "http://127.0.0.1:9" } })).id
    : undefined;
  const nodes: Array<{ id: string; name: string; key: string; connectionId?: string; config: Record<string, unknown> }> = [
    { id: "t", name: "alert", key: trigger, ...(connectionId ? { connectionId } : {}), config: alert ? { statuses: ["firing"] } : {} },
  ];
  const exprs = alert
    ? ["{{ $trigger.data.status = 'firing' }}", "{{ $count($keys($trigger.data.labels)) > 0 }}", "{{ $steps.s1.data.passed and $steps.s2.data.passed }}"]
    : ["{{ $trigger.data.body.status = 'firing' }}", "{{ $count($trigger.data.body.alerts) > 0 }}", "{{ $steps.s1.data.passed and $steps.s2.data.passed }}"];
  for (let i = 1; i <= steps; i++) nodes.push({ id: `s${i}`, name: `s${i}`, key: "core.filter", config: { condition: exprs[(i - 1) % 3]! } });
  const edges = nodes.slice(1).map((n, i) => ({ from: nodes[i]!.id, to: n.id }));
  const a = await createAutomation(deps, ws.actor, ws.workspaceId, { name: "bench", enabled: true, concurrency: 1000, graph: { nodes, edges } });
  const token = a.triggers[0]!.url!.split("/hooks/")[1]!;
  return { ws, automation: a, token };
}

export async function listen(deps: AppDeps): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith("/hooks/")) handleHookRequest(req, res, deps);
    else {
      res.writeHead(404);
      res.end();
    }
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, port: (server.address() as AddressInfo).port };
}

export function machine(): string {
  const cpu = os.cpus();
  return `${cpu.length} × ${cpu[0]?.model ?? "cpu"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}`;
}

export const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0);
