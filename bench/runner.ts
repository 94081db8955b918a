/**
 * End to end through the runner (one process, like `npm start`):
 * A. throughput: N deliveries of a webhook → 3 core.filter steps automation are committed, then the
 *    runner drains them; completed runs/s with every step recorded;
 * B. latency: deliveries over HTTP at a fixed rate while the runner works; delivery → run finished p50/p99;
 * C. memory: RSS after 100k runs in total went through.
 * Prints one JSON line.
 */
import { runnerHooks } from "../server/runner-hooks";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import { envelope } from "@/integrations/core/define";
import { startRunner } from "@/server/runner/runner-loop";
import { getVersionGraph } from "@/server/graphs";
import { BODY, benchDeps, listen, pct, threeStepAutomation } from "./harness";

const N = Number(process.env.BENCH_RUNS ?? 20_000);
const TOTAL = Number(process.env.BENCH_TOTAL_RUNS ?? 100_000);
const RATE = Number(process.env.BENCH_RATE ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 256); // the server default (CONVEYOR_RUNNER_CONCURRENCY)
const { deps, db, file, close } = await benchDeps();
const { ws, automation, token } = await threeStepAutomation(deps);
const graph = await getVersionGraph(deps.store, automation.id, automation.version);
const body = JSON.parse(BODY.toString());
const q = <T>(sql: string, ...a: unknown[]) => db.$client.prepare(sql).get(...a) as T;

/** autocannon (CLI, -j) at a fixed overall rate: 202s and the request latency p99. */
function loadAtRate(url: string, rate: number, seconds: number): Promise<{ "2xx": number; latency: { p99: number } }> {
  const bodyFile = path.join(path.dirname(file), "body.json");
  fs.writeFileSync(bodyFile, BODY);
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      [
        path.join(import.meta.dirname, "..", "node_modules", "autocannon", "autocannon.js"),
        "-j",
        "-c",
        "32",
        "-R",
        String(rate),
        "-d",
        String(seconds),
        "-m",
        "POST",
        "-H",
        "content-type=application/json",
        "-i",
        bodyFile,
        url,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    p.on("error", reject);
    p.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out) as { "2xx": number; latency: { p99: number } }) : reject(new Error(`autocannon exited ${code}`)),
    );
  });
}

async function enqueue(n: number) {
  for (let i = 0; i < n; i += 1000) {
    await Promise.all(
      Array.from({ length: Math.min(1000, n - i) }, () =>
        deps.store.engine.ingest({
          intakeId: "",
          runs: [
            {
              workspaceId: ws.workspaceId,
              automationId: automation.id,
              version: 1,
              triggerNodeId: "t",
              firstNodes: graph.children.get("t") ?? [],
              source: "webhook",
              envelope: envelope("core.webhook", { body, headers: {}, query: {} }),
              at: new Date(),
            },
          ],
        }),
      ),
    );
  }
}
const succeeded = () => q<{ n: number }>("select count(*) as n from runs where status = 'succeeded'").n;
// Poll the (small) jobs table, not a count over the whole run history: the measuring loop shares
// the event loop with the in-process runner and must not slow it down.
const pending = () => q<{ n: number }>("select count(*) as n from jobs").n;
const waitAll = async (target: number) => {
  const started = Date.now();
  for (;;) {
    while (pending() > 0) await new Promise((r) => setTimeout(r, 20));
    if (Date.now() - started > 60_000) process.stderr.write(`waiting: ${succeeded()} of ${target} succeeded, ${pending()} jobs\n`);
    if (succeeded() >= target) return;
    await new Promise((r) => setTimeout(r, 50));
  }
};

// A. throughput
await enqueue(N);
deps.queue.publish([]);
// BENCH_SPLIT=1: the runner runs as a separate `worker` process on the same database (second core).
const SPLIT = process.env.BENCH_SPLIT === "1";
async function startBenchRunner(): Promise<{ stop(): Promise<void> }> {
  if (!SPLIT)
    return startRunner(deps, runnerHooks(deps), {
      concurrency: CONCURRENCY,
      maintenance: process.env.BENCH_MAINT === "0" ? false : { pruneEveryMs: 3_600_000, retentionCount: 1_000_000 },
    });
  const child = spawn(process.execPath, ["--import", "tsx", "server/runner/testing/worker-child.ts"], {
    env: { ...process.env, DB_URL: file, SECRET_HEX: randomBytes(32).toString("hex"), CONCURRENCY: String(CONCURRENCY), LEASE_MS: "30000" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve) => child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve()));
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
const runner = await startBenchRunner();
const t0 = performance.now();
const cpu0 = process.cpuUsage();
await waitAll(N);
const secs = (performance.now() - t0) / 1000;
const cpuA = process.cpuUsage(cpu0);
const steps = q<{ n: number }>("select count(*) as n from run_steps where status = 'succeeded'").n;
const failed = q<{ n: number }>("select count(*) as n from runs where status != 'succeeded'").n;
const throughput = {
  runs: N,
  seconds: Number(secs.toFixed(2)),
  runsPerSecond: Math.round(N / secs),
  stepsRecorded: steps,
  notSucceeded: failed,
  cpuMicrosPerRun: Math.round((cpuA.user + cpuA.system) / N),
  cpuShare: Number(((cpuA.user + cpuA.system) / 1e6 / secs).toFixed(2)),
};

if (process.env.BENCH_ONLY_THROUGHPUT === "1") {
  await runner.stop();
  console.log(
    JSON.stringify({
      bench: "runner",
      concurrency: CONCURRENCY,
      throughput,
    }),
  );
  await close();
  process.exit(0);
}

// B. latency at a fixed delivery rate over HTTP
const { server, port } = await listen(deps);
const before = succeeded();
const mark = new Date().toISOString();
const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
// The load generator is a process of its own (in this process it would take the event loop from the server).
const ac = await loadAtRate(`http://127.0.0.1:${port}/hooks/${token}`, RATE, Number(process.env.BENCH_LATENCY_SECONDS ?? 8));
loop.disable();
await waitAll(before + ac["2xx"]);
const rows = db.$client
  .prepare(
    `select (julianday(r.finished_at) - julianday(e.received_at)) * 86400000.0 as ms, (julianday(r.started_at) - julianday(e.received_at)) * 86400000.0 as wait
   from runs r join events e on e.id = r.event_id where e.received_at >= ?`,
  )
  .all(mark) as Array<{ ms: number; wait: number }>;
const lat = rows.map((r) => r.ms).sort((a, b) => a - b);
// Delivery → first step claimed (queue wait), the rest is the three steps.
const waits = rows.map((r) => r.wait).sort((a, b) => a - b);

// C. memory after TOTAL runs
let done = succeeded();
while (done < TOTAL) {
  const n = Math.min(20_000, TOTAL - done);
  await enqueue(n);
  process.stderr.write(`memory phase: ${done} runs done, ${n} more enqueued\n`);
  await waitAll(done + n);
  done = succeeded();
}
globalThis.gc?.();
await new Promise((r) => setTimeout(r, 500));
const mem = process.memoryUsage();
await runner.stop();
server.close();
console.log(
  JSON.stringify({
    bench: "runner",
    split: SPLIT,
    concurrency: CONCURRENCY,
    // CPU of this process per run while draining (with SPLIT the runs execute in the worker process instead).
    throughput,
    latency: {
      rate: RATE,
      delivered: ac["2xx"],
      p50ms: Math.round(pct(lat, 50)),
      p99ms: Math.round(pct(lat, 99)),
      startP50ms: Math.round(pct(waits, 50)),
      startP99ms: Math.round(pct(waits, 99)),
      ingestP99ms: ac.latency.p99,
      eventLoopDelayP99ms: Math.round(loop.percentile(99) / 1e6),
      eventLoopDelayMaxMs: Math.round(loop.max / 1e6),
    },
    memory: {
      totalRuns: done,
      rssMB: Math.round(mem.rss / 2 ** 20),
      heapUsedMB: Math.round(mem.heapUsed / 2 ** 20),
      heapTotalMB: Math.round(mem.heapTotal / 2 ** 20),
      externalMB: Math.round(mem.external / 2 ** 20),
      historyRows: q<{ n: number }>("select count(*) as n from runs").n,
    },
  }),
);
close();
process.exit(0);
