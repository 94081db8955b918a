/**
 * Poison automations against the whole server (`npm start`'s process: Next.js + runner + ingress):
 * ten runs whose `core.http` body is a poison expression (catastrophic regex backtracking, a huge
 * value, a runaway loop) execute while `/api/health` is sampled back to back. For comparison the
 * same is measured while idle and while ten ordinary runs of the same shape execute. Reports
 * health latency p50/p99/max per phase, the server's RSS (baseline, after the ordinary runs,
 * after the poison runs) and how the runs ended. Needs a production build (npm run build).
 * Prints one JSON line (scripts/bench.mjs convention).
 */
import fs from "node:fs";
import http from "node:http";
import { startApp, type StartedApp } from "./app";
import { pct } from "./harness";

const RUNS = Number(process.env.BENCH_POISON_RUNS ?? 10);
const POISON: Record<string, string> = {
  regex: "{{ $match($pad('', 50000, 'a') & '!', /^(a+)+$/) }}",
  huge: "{{ $count([1..10000000].{ 'n': $, 'pad': $pad('', 20, 'x') }) }}",
  loop: "{{ ($f := function($n){ $n > 0 ? $f($n - 1) + $f($n - 1) : 1 }; $f(60)) }}",
};

const rssMB = (pid: number) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024);

/** Sum of a metric's samples from GET /metrics (Prometheus text). */
async function metric(app: StartedApp, name: string): Promise<number> {
  const text = await (await fetch(`${app.base}/metrics`)).text();
  return text
    .split("\n")
    .filter((l) => l.startsWith(name) && /^[\w]+(\{|\s)/.test(l))
    .reduce((sum, l) => sum + Number(l.split(" ").pop()), 0);
}
const heapMB = async (app: StartedApp) => Math.round((await metric(app, "conveyor_process_nodejs_heap_size_used_bytes")) / 2 ** 20);

async function api(app: StartedApp, method: string, path: string, body?: unknown) {
  const res = await fetch(`${app.base}/api/v1/factories/${app.workspaceId}${path}`, {
    method,
    headers: { authorization: `Bearer ${app.apiKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Samples /api/health back to back until `until()` says stop; latencies (ms) of the samples taken while `record()`. */
async function sampleHealth(app: StartedApp, until: () => boolean, record: () => boolean = () => true) {
  const ms: number[] = [];
  let failures = 0;
  while (!until()) {
    const recorded = record();
    const t0 = performance.now();
    let ok = false;
    try {
      const res = await fetch(`${app.base}/api/health`);
      await res.arrayBuffer();
      ok = res.ok;
    } catch {
      /* counted below */
    }
    const took = performance.now() - t0;
    if (recorded) {
      if (!ok) failures++;
      ms.push(took);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const sorted = [...ms].sort((a, b) => a - b);
  const r1 = (v: number) => Math.round(v * 10) / 10;
  return { samples: ms.length, failures, p50ms: r1(pct(sorted, 50)), p99ms: r1(pct(sorted, 99)), maxMs: r1(sorted.at(-1) ?? 0) };
}

// The upstream the runs call: a loopback server of the bench's own (the service's own port is never
// an egress destination, so calling /api/health back would be refused before any request).
const upstream = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}'));
});
await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
const upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}/`;
const app = await startApp("poison");
try {
  const kinds = Object.keys(POISON);
  const apps: Record<string, string> = {};
  for (const kind of kinds) {
    const graph = {
      nodes: [
        { id: "t", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
        {
          id: "h",
          name: `call_${kind}`,
          key: "core.http",
          config: { method: "POST", url: upstreamUrl, body: { value: POISON[kind] } },
          position: { x: 300, y: 0 },
        },
      ],
      edges: [{ from: "t", to: "h" }],
    };
    apps[kind] = ((await api(app, "POST", "/apps", { name: `poison ${kind}`, concurrency: RUNS, graph })) as { id: string }).id;
  }
  // Warm-up: Next loads each route's code on its first request (hundreds of ms on the event loop),
  // so every route used below is called once first, with an ordinary run (cheap and pooled expressions).
  const warm = (
    (await api(app, "POST", "/apps", {
      name: "warm-up",
      graph: {
        nodes: [
          { id: "t", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
          {
            id: "f",
            name: "check",
            key: "core.filter",
            config: { condition: "{{ $join(['a', 'b'], '') = 'ab' and $trigger.data.n = 1 }}" },
            position: { x: 300, y: 0 },
          },
        ],
        edges: [{ from: "t", to: "f" }],
      },
    })) as { id: string }
  ).id;
  const warmRun = ((await api(app, "POST", `/apps/${warm}/runs`, { payload: { n: 1 } })) as { id: string }).id;
  for (let i = 0; i < 100; i++) {
    const list = (await api(app, "GET", `/apps/${warm}/runs?limit=50`)) as { data: Array<{ id: string; status: string }> };
    if (list.data.find((r) => r.id === warmRun)?.status === "succeeded") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  for (let i = 0; i < 20; i++) await (await fetch(`${app.base}/api/health`)).arrayBuffer();
  await metric(app, "conveyor_expression_stops_total");
  const quietUntil = Date.now() + 5000;
  const quiet = await sampleHealth(app, () => Date.now() > quietUntil);
  const rssBaselineMB = rssMB(app.pid);
  const heapBaselineMB = await heapMB(app);

  // Each phase lasts at least this long (health sampled and runs listed throughout): the server's RSS
  // drifts upward under any request load (measured: 241 → 346 MB over 20 s of health + REST polling
  // alone), so RSS growth is compared between equally long phases, ordinary vs poison.
  const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 15_000);
  /** Starts RUNS runs round-robin over `targets`; health latency is recorded until they have all finished. */
  async function phase(targets: Record<string, string>) {
    const names = Object.keys(targets);
    const started = Date.now();
    const runs = await Promise.all(
      Array.from({ length: RUNS }, (_, i) => names[i % names.length]!).map(async (kind) => ({
        kind,
        id: ((await api(app, "POST", `/apps/${targets[kind]}/runs`, { payload: {} })) as { id: string }).id,
      })),
    );
    let done = false;
    let rssPeakMB = 0;
    const finished: Array<{ kind: string; status: string; error: string | null }> = [];
    const watch = (async () => {
      const open = new Set(runs.map((r) => r.id));
      while (open.size || Date.now() - started < PHASE_MS) {
        rssPeakMB = Math.max(rssPeakMB, rssMB(app.pid));
        for (const kind of names) {
          const list = (await api(app, "GET", `/apps/${targets[kind]}/runs?limit=50`)) as {
            data: Array<{ id: string; status: string; error: { message: string } | null }>;
          };
          for (const run of list.data) {
            if (open.has(run.id) && ["succeeded", "failed", "cancelled"].includes(run.status)) {
              open.delete(run.id);
              finished.push({ kind, status: run.status, error: run.error?.message ?? null });
            }
          }
        }
        if (Date.now() - started > 120_000) throw new Error(`runs still open after 120 s: ${[...open].join(", ")}`);
        await new Promise((r) => setTimeout(r, 500));
      }
      done = true;
    })();
    let allFinishedMs = 0;
    const recording = () => {
      if (!allFinishedMs && finished.length === runs.length) allFinishedMs = Date.now() - started;
      return !allFinishedMs;
    };
    const health = await sampleHealth(app, () => done, recording);
    await watch;
    return { allFinishedMs, outcomes: [...new Set(finished.map((f) => `${f.status}${f.error ? `: ${f.error}` : ""}`))], health, rssPeakMB };
  }

  // Control: the same number of ordinary runs of the same shape (a pooled expression, then the request).
  const control = (
    (await api(app, "POST", "/apps", {
      name: "control",
      concurrency: RUNS,
      graph: {
        nodes: [
          { id: "t", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } },
          {
            id: "h",
            name: "call_ok",
            key: "core.http",
            config: { method: "GET", url: upstreamUrl, headers: { "x-check": "{{ $join(['a', 'b'], '-') }}" } },
            position: { x: 300, y: 0 },
          },
        ],
        edges: [{ from: "t", to: "h" }],
      },
    })) as { id: string }
  ).id;
  const ordinary = await phase({ ordinary: control });
  const rssAfterOrdinaryMB = rssMB(app.pid);
  const heapAfterOrdinaryMB = await heapMB(app);
  const poison = await phase(apps);
  const rssAfterMB = rssMB(app.pid);
  const heapAfterMB = await heapMB(app);
  const stops = await metric(app, "conveyor_expression_stops_total");
  const pctOf = (v: number, base: number) => Math.round(((v - base) / base) * 1000) / 10;
  console.log(
    JSON.stringify({
      bench: "poison",
      runs: RUNS,
      healthQuiet: quiet,
      ordinary: { allFinishedMs: ordinary.allFinishedMs, outcomes: ordinary.outcomes, health: ordinary.health },
      poison: { allFinishedMs: poison.allFinishedMs, outcomes: poison.outcomes, health: poison.health, expressionStops: stops },
      heapUsedMB: { baseline: heapBaselineMB, afterOrdinary: heapAfterOrdinaryMB, afterPoison: heapAfterMB },
      rss: {
        baselineMB: rssBaselineMB,
        afterOrdinaryMB: rssAfterOrdinaryMB,
        peakDuringPoisonMB: poison.rssPeakMB,
        afterPoisonMB: rssAfterMB,
        afterPoisonVsBaselinePct: pctOf(rssAfterMB, rssBaselineMB),
        afterPoisonVsAfterOrdinaryPct: pctOf(rssAfterMB, rssAfterOrdinaryMB),
        growthOrdinaryPhaseMB: rssAfterOrdinaryMB - rssBaselineMB,
        growthPoisonPhaseMB: rssAfterMB - rssAfterOrdinaryMB,
      },
      phaseMs: PHASE_MS,
    }),
  );
} finally {
  app.stop();
}
process.exit(0);
