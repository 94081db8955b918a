/**
 * The embedded mode (SQLite, one process) before and after the storage seam, side by side: the same
 * bench scripts (bench/ingest.ts: wrk -t2 -c32 on the lean listener; bench/runner.ts: 20,000 queued
 * 3-step runs drained by the in-process runner) run in a checkout of the pre-seam commit and in this
 * one, alternately, in the same `npm run bench`. The pre-seam tree runs its own copy of the scripts
 * (same load, same body, same automation), so nothing of this tree leaks into its figures.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { selfChildrenCpuMs } from "./proc-cpu";

export const PRESEAM_COMMIT = "9d2b542";
const ROOT = path.resolve(import.meta.dirname, "../..");

/** Runs one bench script in a tree; adds the CPU time of the whole script (user + system, from /proc) as `cpuMs`. */
function runIn(tree: string, file: string, env: Record<string, string>): Record<string, unknown> {
  const cpu0 = selfChildrenCpuMs();
  const r = spawnSync(process.execPath, ["--max-semi-space-size=16", "--import", "tsx", file], {
    cwd: tree,
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 240_000,
  });
  const line = (r.stdout ?? "")
    .trim()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .pop();
  if (!line) throw new Error(`${tree}/${file} produced no result:\n${r.stdout}\n${r.stderr}`);
  const cpuMs = Math.round(selfChildrenCpuMs() - cpu0);
  process.stderr.write(`  ${path.basename(tree)} ${file}: ${line} (script CPU ${cpuMs} ms)\n`);
  return { ...(JSON.parse(line) as Record<string, unknown>), cpuMs };
}

export interface EmbeddedSide {
  /** Means of the two runs of each side. */
  ingest: { perSecond: number; p99ms: number; serverCpuMicrosPerDelivery: number; allAcceptedDurable: boolean; runs: number[] };
  runs: { runsPerSecond: number; stepsRecorded: number; notSucceeded: number; runs: number[]; scriptCpuMs: number };
}

export interface EmbeddedComparison {
  preseamDir: string;
  commit: string;
  before: EmbeddedSide;
  after: EmbeddedSide;
  /** after / before − 1, in per cent (negative: fewer per second, or less CPU, now). */
  change: { ingestPerSecond: number; ingestCpuPerDelivery: number; runsPerSecond: number; runnerScriptCpu: number };
}

interface IngestFigures {
  perSecond: number;
  p99ms: number;
  serverCpuMicrosPerDelivery: number;
  allAcceptedDurable: boolean;
}
interface IngestRound {
  kind: string;
  sync: string;
  seconds: number;
  accepted: number;
  p99: number;
  cpuSeconds: number;
  acceptedTotal: number;
  stored: number;
}

/**
 * The Conveyor NORMAL figures of one bench/ingest.ts result. The pre-seam script prints them at the
 * top level; the current one prints rounds of several targets (Conveyor, the bare limit, Node-RED).
 */
export function ingestFigures(x: Record<string, unknown>): IngestFigures {
  if (x.perSecond !== undefined) {
    return {
      perSecond: Number(x.perSecond),
      p99ms: Number(x.p99ms),
      serverCpuMicrosPerDelivery: Number(x.serverCpuMicrosPerDelivery),
      allAcceptedDurable: Boolean(x.allAcceptedDurable),
    };
  }
  const rounds = ((x.runs as IngestRound[] | undefined) ?? []).filter((r) => r.kind === "conveyor" && r.sync === "NORMAL");
  if (!rounds.length) throw new Error(`bench/ingest.ts gave no Conveyor NORMAL round: ${JSON.stringify(x).slice(0, 300)}`);
  return {
    perSecond: mean(rounds.map((r) => r.accepted / r.seconds)),
    p99ms: Math.max(...rounds.map((r) => r.p99)),
    serverCpuMicrosPerDelivery: mean(rounds.map((r) => (r.cpuSeconds * 1e6) / r.accepted)),
    allAcceptedDurable: rounds.every((r) => r.stored >= r.acceptedTotal),
  };
}

const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);

/** Where the pre-seam tree is made when none is given: outside the checkout, so no tool of this tree (vitest, tsc, eslint) sees it. */
export const DEFAULT_PRESEAM_DIR = path.join(os.tmpdir(), `conveyor-bench-preseam-${PRESEAM_COMMIT}`);

/**
 * The pre-seam tree: `git archive` of PRESEAM_COMMIT extracted into `dir` (once), its node_modules a
 * link to this checkout's (its dependencies are a subset of today's, at the same versions). False
 * when it cannot be made (a shallow clone without that commit).
 */
export function ensurePreseamTree(dir: string): boolean {
  if (fs.existsSync(path.join(dir, "bench", "ingest.ts")) && fs.existsSync(path.join(dir, "node_modules"))) return true;
  const archive = spawnSync("git", ["-C", ROOT, "archive", "--format=tar", PRESEAM_COMMIT], { maxBuffer: 1 << 30 });
  if (archive.status !== 0) {
    process.stderr.write(`bench: cannot read commit ${PRESEAM_COMMIT} (${String(archive.stderr).trim()}); the embedded before/after comparison is skipped\n`);
    return false;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const untar = spawnSync("tar", ["-x", "-C", dir], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar: ${String(untar.stderr)}`);
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  process.stderr.write(`bench: made the pre-seam tree ${dir} from commit ${PRESEAM_COMMIT}\n`);
  return true;
}

/** Null when no pre-seam tree can be had (BENCH_PRESEAM_DIR names one; else it is made from the repository's history). */
export function embeddedSideBySide(preseamDir: string, ingestSeconds: number): EmbeddedComparison | null {
  if (!ensurePreseamTree(preseamDir)) return null;
  const ingestEnv = { BENCH_SECONDS: String(ingestSeconds), BENCH_SYNC: "NORMAL" };
  // The same work on both sides: 20,000 queued runs drained, then a short latency phase; no 100k memory phase.
  const runnerEnv = { BENCH_RUNS: "20000", BENCH_TOTAL_RUNS: "20000", BENCH_RATE: "1000", BENCH_LATENCY_SECONDS: "3" };
  // Before, now, now, before (ABBA): a drift of the load on the shared machine affects both sides alike.
  const ib = [runIn(preseamDir, "bench/ingest.ts", ingestEnv)];
  const ia = [runIn(ROOT, "bench/ingest.ts", ingestEnv), runIn(ROOT, "bench/ingest.ts", ingestEnv)];
  ib.push(runIn(preseamDir, "bench/ingest.ts", ingestEnv));
  const rb = [runIn(preseamDir, "bench/runner.ts", runnerEnv)];
  const ra = [runIn(ROOT, "bench/runner.ts", runnerEnv), runIn(ROOT, "bench/runner.ts", runnerEnv)];
  rb.push(runIn(preseamDir, "bench/runner.ts", runnerEnv));
  const side = (raw: Array<Record<string, unknown>>, r: Array<Record<string, unknown>>): EmbeddedSide => {
    const i = raw.map(ingestFigures);
    const t = r.map((x) => x.throughput as { runsPerSecond: number; stepsRecorded: number; notSucceeded: number });
    return {
      ingest: {
        perSecond: mean(i.map((x) => Number(x.perSecond))),
        p99ms: Math.max(...i.map((x) => Number(x.p99ms))),
        serverCpuMicrosPerDelivery: mean(i.map((x) => Number(x.serverCpuMicrosPerDelivery))),
        allAcceptedDurable: i.every((x) => Boolean(x.allAcceptedDurable)),
        runs: i.map((x) => Number(x.perSecond)),
      },
      runs: {
        runsPerSecond: mean(t.map((x) => x.runsPerSecond)),
        stepsRecorded: Math.min(...t.map((x) => x.stepsRecorded)),
        notSucceeded: Math.max(...t.map((x) => x.notSucceeded)),
        runs: t.map((x) => x.runsPerSecond),
        scriptCpuMs: mean(r.map((x) => Number(x.cpuMs))),
      },
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
      runnerScriptCpu: pct(after.runs.scriptCpuMs, before.runs.scriptCpuMs),
    },
  };
}
