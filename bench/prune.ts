/**
 * Pruning holds the database flat (BENCH_BACKEND=sqlite|postgres): waves of history are written
 * (db/testing/history.ts), and after each the maintenance prune (server/runner/maintenance.ts
 * pruneHistory, the runner's own call) runs pass after pass until it has nothing left to do; rows
 * and bytes on disk are read after every wave. Two limits, one scenario each:
 * - count: `retentionCount` runs per automation, the age limit far away;
 * - age: `retentionDays` = 1 with waves six hours apart, the count limit far away.
 * On PostgreSQL a plain VACUUM runs after each wave (what autovacuum does in the background); on
 * SQLite the WAL is checkpointed into the file before sizes are read.
 * Prints one JSON line.
 */
import os from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { seedHistory, type HistoryPlan } from "@/db/testing/history";
import { pruneHistory } from "@/server/runner/maintenance";
import { checkpoint, diskBytes, openBench, plansOf, scans, seedLayout, type BackendName } from "./history-kit";

const BACKEND = (process.env.BENCH_BACKEND ?? "sqlite") as BackendName;
const WAVES = Number(process.env.BENCH_WAVES ?? 8);
const WAVE = Number(process.env.BENCH_WAVE_RUNS ?? 25_000);
const HOUR = 3_600_000;

async function scenario(name: "count" | "age") {
  let clock = new Date(Date.UTC(2030, 0, 1));
  const b = await openBench(BACKEND, () => clock);
  const layout = await seedLayout(b, 2, 2); // 2 workspaces × 2 automations
  const limits =
    name === "count" ? { retentionDays: 3650, retentionCount: (2 * WAVE) / layout.automations.length } : { retentionDays: 1, retentionCount: 10_000_000 };
  const waves = [];
  let plans: Array<{ sql: string; plan: string[] }> = [];
  for (let w = 0; w < WAVES; w++) {
    const end = new Date(clock.getTime() + 6 * HOUR);
    const plan: HistoryPlan = { automations: layout.automations, total: WAVE, end, spanMs: 6 * HOUR };
    await seedHistory(b.storage, plan, 0, WAVE);
    clock = end;
    const passes: number[] = [];
    let removed = 0;
    // The longest the event loop waited during the passes (SQLite runs each chunk synchronously).
    const stall = monitorEventLoopDelay({ resolution: 1 });
    stall.enable();
    for (;;) {
      const t0 = performance.now();
      const n = await pruneHistory(b.deps, limits);
      passes.push(+(performance.now() - t0).toFixed(1));
      removed += n;
      if (n === 0) break;
    }
    stall.disable();
    if (w === WAVES - 1) plans = await plansOf(b, () => pruneHistory(b.deps, limits));
    if (BACKEND === "postgres") await b.sql("vacuum");
    else await checkpoint(b);
    const count = async (t: string) => Number((await b.sql<{ n: number }>(`select count(*) as n from ${t}`))[0]!.n);
    waves.push({
      wave: w + 1,
      written: (w + 1) * WAVE,
      removed,
      runs: await count("runs"),
      steps: await count("run_steps"),
      events: await count("events"),
      passes: passes.length,
      slowestPassMs: Math.max(...passes),
      maxEventLoopDelayMs: +(stall.max / 1e6).toFixed(1),
      bytes: await diskBytes(b),
    });
    process.stderr.write(`prune ${BACKEND} ${name}: ${JSON.stringify(waves[waves.length - 1])}\n`);
  }
  await b.close();
  return { limits, waves, fullScans: scans(plans), plans };
}

const count = await scenario("count");
const age = await scenario("age");
console.log(JSON.stringify({ backend: BACKEND, loadAverage: os.loadavg().map((l) => +l.toFixed(2)), waveRuns: WAVE, count, age }));
process.exit(0);
