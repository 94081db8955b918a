/**
 * Poison automations against the whole server (`npm start`'s process: Next.js + runner + ingress):
 * ten runs whose `core.http` body is a poison expression (catastrophic regex backtracking, a huge
 * value, a runaway loop) execute while `/api/health` is sampled back to back. Reports health
 * latency p50/p99/max (quiet baseline and during the poison runs), the server's RSS baseline vs
 * after, and how each run ended. Needs a production build (npm run build).
 * Prints one JSON line (scripts/bench.mjs convention).
 */
import fs from "node:fs";
import { startApp, type StartedApp } from "./app";
import { pct } from "./harness";

const RUNS = Number(process.env.BENCH_POISON_RUNS ?? 10);
const POISON: Record<string, string> = {
  regex: "{{ $match($pad('', 50000, 'a') & '!', /^(a+)+$/) }}",
  huge: "{{ $count([1..10000000].{ 'n': $, 'pad': $pad('', 20, 'x') }) }}",
  loop: "{{ ($f := function($n){ $n > 0 ? $f($n - 1) + $f($n - 1) : 1 }; $f(60)) }}",
};

const rssMB = (pid: number) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024);

async function api(app: StartedApp, method: string, path: string, body?: unknown) {
  const res = await fetch(`${app.base}/api/v1/factories/${app.workspaceId}${path}`, {
    method,
    headers: { authorization: `Bearer ${app.apiKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Samples /api/health back to back until `until()` says stop; latencies in ms. */
async function sampleHealth(app: StartedApp, until: () => boolean) {
  const ms: number[] = [];
  let failures = 0;
  while (!until()) {
    const t0 = performance.now();
    try {
      const res = await fetch(`${app.base}/api/health`);
      await res.arrayBuffer();
      if (!res.ok) failures++;
    } catch {
      failures++;
    }
    ms.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 10));
  }
  const sorted = [...ms].sort((a, b) => a - b);
  const r1 = (v: number) => Math.round(v * 10) / 10;
  return { samples: ms.length, failures, p50ms: r1(pct(sorted, 50)), p99ms: r1(pct(sorted, 99)), maxMs: r1(sorted.at(-1) ?? 0) };
}

const app = await startApp("poison");
try {
  const kinds = Object.keys(POISON);
  const apps: Record<string, string> = {};
  for (const kind of kinds) {
    const graph = {
      nodes: [
        { id: "t", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
        { id: "h", name: `call_${kind}`, key: "core.http", config: { method: "POST", url: `${app.base}/api/health`, body: { value: POISON[kind] } }, position: { x: 300, y: 0 } },
      ],
      edges: [{ from: "t", to: "h" }],
    };
    apps[kind] = ((await api(app, "POST", "/apps", { name: `poison ${kind}`, concurrency: RUNS, graph })) as { id: string }).id;
  }
  // Warm-up: pages compiled on first use, one ordinary run through the runner.
  for (let i = 0; i < 20; i++) await (await fetch(`${app.base}/api/health`)).arrayBuffer();
  const quietUntil = Date.now() + 5000;
  const quiet = await sampleHealth(app, () => Date.now() > quietUntil);
  const rssBaselineMB = rssMB(app.pid);

  const started = Date.now();
  const runs = await Promise.all(Array.from({ length: RUNS }, (_, i) => kinds[i % kinds.length]!).map(async (kind) => ({ kind, id: ((await api(app, "POST", `/apps/${apps[kind]}/runs`, { payload: {} })) as { id: string }).id })));
  let done = false;
  let rssPeakMB = rssBaselineMB;
  const finished: Array<{ kind: string; status: string; error: string | null; ms: number }> = [];
  const watch = (async () => {
    const open = new Set(runs.map((r) => r.id));
    while (open.size) {
      rssPeakMB = Math.max(rssPeakMB, rssMB(app.pid));
      for (const r of runs.filter((x) => open.has(x.id))) {
        const run = (await api(app, "GET", `/apps/${apps[r.kind]}/runs/${r.id}`)) as { status: string; error: { message: string } | null };
        if (["succeeded", "failed", "cancelled"].includes(run.status)) {
          open.delete(r.id);
          finished.push({ kind: r.kind, status: run.status, error: run.error?.message ?? null, ms: Date.now() - started });
        }
      }
      if (Date.now() - started > 120_000) throw new Error(`poison runs still open after 120 s: ${[...open].join(", ")}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    done = true;
  })();
  const during = await sampleHealth(app, () => done);
  await watch;
  const allDoneMs = Date.now() - started;
  await new Promise((r) => setTimeout(r, 3000));
  const rssAfterMB = rssMB(app.pid);
  const messages = [...new Set(finished.map((f) => `${f.status}: ${f.error}`))];
  console.log(JSON.stringify({
    bench: "poison",
    runs: RUNS,
    allFinishedMs: allDoneMs,
    outcomes: messages,
    healthQuiet: quiet,
    healthDuringPoison: during,
    rss: { baselineMB: rssBaselineMB, peakMB: rssPeakMB, afterMB: rssAfterMB, afterVsBaselinePct: Math.round(((rssAfterMB - rssBaselineMB) / rssBaselineMB) * 1000) / 10 },
  }));
} finally {
  app.stop();
}
process.exit(0);
