/**
 * The embedded mode (SQLite, one process) before and after the storage seam, side by side: the same
 * bench scripts (bench/ingest.ts: wrk -t2 -c32 on the lean listener; bench/runner.ts: 20,000 queued
 * 3-step runs drained by the in-process runner) run in a checkout of the pre-seam commit and in this
 * one, alternately, in the same `npm run bench`. The pre-seam tree runs its own copy of the scripts
 * (same load, same body, same automation), so nothing of this tree leaks into its figures.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export const PRESEAM_COMMIT = "9d2b542";
const ROOT = path.resolve(import.meta.dirname, "../..");

function runIn(tree: string, file: string, env: Record<string, string>): Record<string, unknown> {
  const r = spawnSync(process.execPath, ["--max-semi-space-size=16", "--import", "tsx", file], {
    cwd: tree, env: { ...process.env, ...env }, encoding: "utf8", timeout: 240_000,
  });
  const line = (r.stdout ?? "").trim().split("\n").filter((l) => l.startsWith("{")).pop();
  if (!line) throw new Error(`${tree}/${file} produced no result:\n${r.stdout}\n${r.stderr}`);
  process.stderr.write(`  ${path.basename(tree)} ${file}: ${line}\n`);
  return JSON.parse(line) as Record<string, unknown>;
}

export interface EmbeddedSide {
  ingest: { perSecond: number; p99ms: number; serverCpuMicrosPerDelivery: number; allAcceptedDurable: boolean };
  runs: { runsPerSecond: number; stepsRecorded: number; notSucceeded: number };
}

export interface EmbeddedComparison {
  preseamDir: string;
  commit: string;
  before: EmbeddedSide;
  after: EmbeddedSide;
  /** after / before − 1, in per cent (negative: slower now). */
  change: { ingestPerSecond: number; ingestCpuPerDelivery: number; runsPerSecond: number };
}

/** Null when no pre-seam checkout is there (see docs/benchmarks.md for how to make one). */
export function embeddedSideBySide(preseamDir: string, ingestSeconds: number): EmbeddedComparison | null {
  if (!fs.existsSync(path.join(preseamDir, "bench", "ingest.ts")) || !fs.existsSync(path.join(preseamDir, "node_modules"))) {
    process.stderr.write(`bench: no pre-seam checkout in ${preseamDir}; the embedded before/after comparison is skipped\n`);
    return null;
  }
  const ingestEnv = { BENCH_SECONDS: String(ingestSeconds), BENCH_SYNC: "NORMAL" };
  const runnerEnv = { BENCH_RUNS: "20000", BENCH_TOTAL_RUNS: "20000", BENCH_RATE: "1000", BENCH_LATENCY_SECONDS: "3" };
  // Alternate which tree goes first, so a change of load on the machine does not favour one side.
  const ib = runIn(preseamDir, "bench/ingest.ts", ingestEnv);
  const ia = runIn(ROOT, "bench/ingest.ts", ingestEnv);
  const ra = runIn(ROOT, "bench/runner.ts", runnerEnv);
  const rb = runIn(preseamDir, "bench/runner.ts", runnerEnv);
  const side = (i: Record<string, unknown>, r: Record<string, unknown>): EmbeddedSide => {
    const t = r.throughput as EmbeddedSide["runs"];
    return {
      ingest: { perSecond: Number(i.perSecond), p99ms: Number(i.p99ms), serverCpuMicrosPerDelivery: Number(i.serverCpuMicrosPerDelivery), allAcceptedDurable: Boolean(i.allAcceptedDurable) },
      runs: { runsPerSecond: t.runsPerSecond, stepsRecorded: t.stepsRecorded, notSucceeded: t.notSucceeded },
    };
  };
  const before = side(ib, rb);
  const after = side(ia, ra);
  const pct = (a: number, b: number) => Math.round((a / b - 1) * 1000) / 10;
  return {
    preseamDir,
    commit: PRESEAM_COMMIT,
    before,
    after,
    change: {
      ingestPerSecond: pct(after.ingest.perSecond, before.ingest.perSecond),
      ingestCpuPerDelivery: pct(after.ingest.serverCpuMicrosPerDelivery, before.ingest.serverCpuMicrosPerDelivery),
      runsPerSecond: pct(after.runs.runsPerSecond, before.runs.runsPerSecond),
    },
  };
}
