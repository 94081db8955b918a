/**
 * Webhook ingest, side by side in one run on this machine (each server a process of its own, wrk
 * -t2 -c32 on the same cores, the Alertmanager body with a distinct alert per request, WARMUP s of
 * warm-up then SECONDS s measured):
 * - the bare limit (bench/peers/bare-limit.mjs: node:http + JSON.parse + one row per delivery,
 *   commits grouped per tick), synchronous NORMAL and FULL;
 * - the peer: Node-RED, installed by this bench from the npm registry (bench/peers/node-red.ts),
 *   `http in` → 3 function nodes → `http response`, memory only;
 * - Conveyor's `/hooks` (bench/peers/conveyor-hooks.ts: metrics.onAlert → 3 core.filter, each
 *   delivery committed before its 202), NORMAL and FULL, compiled as the server bundle is
 *   (bench/compile.mjs);
 * - optionally the same Conveyor target from another checkout (BENCH_BASELINE_DIR: the previous
 *   build, for an A/B in the same run; copy this bench/ folder into it first).
 * The NORMAL trio runs BENCH_ROUNDS times interleaved (bare, peer, Conveyor, bare, …) so load from
 * other processes spreads over all three. Server CPU comes from /proc/<pid>/stat (user + system, every
 * thread), divided by the deliveries answered 202 in the measured window. After each Conveyor run the
 * server counts the events it stored: every delivery answered 202 must be there.
 * BENCH_PROFILE=1 adds one Conveyor run under --cpu-prof (not counted in the ratios) and summarizes it.
 * Prints one JSON line (scripts/bench.mjs renders it into docs/benchmarks.md).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { compileBench } from "./compile.mjs";
import { summarizeCpuProfile, type ProfileSummary } from "./cpu-profile";
import { machine } from "./harness";
import { ensureNodeRed, NODE_RED_PATH, NODE_RED_VERSION, startNodeRed } from "./peers/node-red";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const FULL = process.env.BENCH_FULL !== "0";
const BASELINE = process.env.BENCH_BASELINE_DIR;
const ROOT = path.resolve(import.meta.dirname, "..");
const TICK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-ingest-bench-"));
const bodyFile = path.join(ROOT, "bench", "fixtures", "alertmanager-webhook.json");

interface Started {
  pid: number;
  url: string;
  /** Stops the server; what it reports it stored (durable targets). */
  stop(): Promise<{ storedEvents?: number; stored?: number }>;
}

interface Target {
  name: string;
  kind: "bare" | "peer" | "conveyor" | "baseline";
  sync?: "NORMAL" | "FULL";
  start(): Promise<Started>;
}

/** First JSON line the child prints on stdout; later JSON lines go to `later`. */
function jsonLines(child: ChildProcess): { first: Promise<Record<string, unknown>>; last(): Promise<Record<string, unknown>> } {
  let out = "";
  let err = "";
  const lines: Array<Record<string, unknown>> = [];
  let resolveFirst: (v: Record<string, unknown>) => void;
  let rejectFirst: (e: Error) => void;
  const first = new Promise<Record<string, unknown>>((res, rej) => ((resolveFirst = res), (rejectFirst = rej)));
  child.stdout!.on("data", (d: Buffer) => {
    out += d;
    let i;
    while ((i = out.indexOf("\n")) >= 0) {
      const line = out.slice(0, i).trim();
      out = out.slice(i + 1);
      if (!line.startsWith("{")) continue;
      lines.push(JSON.parse(line) as Record<string, unknown>);
      if (lines.length === 1) resolveFirst(lines[0]!);
    }
  });
  child.stderr!.on("data", (d: Buffer) => (err += d));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.once("exit", (code) => rejectFirst(new Error(`server exited (${code}) before it was ready: ${err.slice(-2000)}`)));
  return { first, last: async () => (await exited, lines.length > 1 ? lines[lines.length - 1]! : {}) };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

const bare = (sync: "NORMAL" | "FULL"): Target => ({
  name: `bare limit (${sync})`,
  kind: "bare",
  sync,
  async start() {
    const child = spawn(process.execPath, [path.join(ROOT, "bench/peers/bare-limit.mjs"), path.join(fs.mkdtempSync(path.join(scratch, "bare-")), "bare.db")], {
      env: { ...process.env, BARE_SYNC: sync },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines = jsonLines(child);
    const { port } = (await lines.first) as { port: number };
    return {
      pid: child.pid!,
      url: `http://127.0.0.1:${port}/hooks/bare`,
      stop: async () => (child.kill("SIGTERM"), (await lines.last()) as { stored?: number }),
    };
  },
});

const conveyor = (sync: "NORMAL" | "FULL", opts: { dir?: string; name?: string; profileDir?: string } = {}): Target => ({
  name: opts.name ?? `Conveyor /hooks (${sync})`,
  kind: opts.dir ? "baseline" : "conveyor",
  sync,
  async start() {
    // Compiled as the server bundle is (bench/compile.mjs): production runs JavaScript, not tsx's output.
    // The profiled run keeps the sources, so its samples name the files they come from.
    const flags = opts.profileDir
      ? ["--max-semi-space-size=16", "--cpu-prof", `--cpu-prof-dir=${opts.profileDir}`, "--import", "tsx", "bench/peers/conveyor-hooks.ts"]
      : ["--max-semi-space-size=16", await compileBench("bench/peers/conveyor-hooks.ts", opts.dir ?? ROOT)];
    const child = spawn(process.execPath, flags, {
      cwd: opts.dir ?? ROOT,
      env: { ...process.env, BENCH_SYNC: sync, LOG_LEVEL: "silent" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines = jsonLines(child);
    const { port, token } = (await lines.first) as { port: number; token: string };
    return {
      pid: child.pid!,
      url: `http://127.0.0.1:${port}/hooks/${token}`,
      stop: async () => (child.kill("SIGTERM"), (await lines.last()) as { storedEvents?: number }),
    };
  },
});

function peer(redJs: string): Target {
  return {
    name: `Node-RED ${NODE_RED_VERSION} (memory only)`,
    kind: "peer",
    async start() {
      const port = await freePort();
      const { child, dir } = startNodeRed(redJs, port);
      let err = "";
      child.stderr!.on("data", (d: Buffer) => (err += d));
      const url = `http://127.0.0.1:${port}${NODE_RED_PATH}`;
      const body = fs.readFileSync(bodyFile);
      for (const until = Date.now() + 60_000; ; ) {
        if (child.exitCode !== null) throw new Error(`Node-RED exited: ${err.slice(-2000)}`);
        const ok = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body }).then(
          (r) => r.status === 202,
          () => false,
        );
        if (ok) break;
        if (Date.now() > until) throw new Error(`Node-RED did not answer 202 on ${url}: ${err.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      return { pid: child.pid!, url, stop: async () => (await stopChild(child), fs.rmSync(dir, { recursive: true, force: true }), {}) };
    },
  };
}

interface Wrk {
  accepted: number;
  other: number;
  p50: number;
  p90: number;
  p99: number;
}

function wrk(url: string, seconds: number, tag: string): Promise<Wrk> {
  return new Promise((resolve, reject) => {
    const p = spawn("wrk", ["-t2", "-c32", `-d${seconds}s`, "-s", path.join(ROOT, "bench", "post.lua"), url], {
      env: { ...process.env, BODY_FILE: bodyFile, RUN_TAG: tag },
    });
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (out += d));
    p.on("error", reject);
    p.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`wrk failed: ${out}`));
      const num = (re: RegExp) => Number(out.match(re)?.[1] ?? NaN);
      resolve({ accepted: num(/ACCEPTED (\d+)/), other: num(/OTHER (\d+)/), p50: num(/P50 ([\d.]+)/), p90: num(/P90 ([\d.]+)/), p99: num(/P99 ([\d.]+)/) });
    });
  });
}

/** User + system CPU seconds of a process (all its threads). */
function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / TICK;
}

interface Measured extends Wrk {
  target: string;
  kind: Target["kind"];
  sync?: string;
  round: number;
  seconds: number;
  cpuSeconds: number;
  load1: number;
  /** Durable targets: every delivery answered 202 (warm-up and measured) is stored. */
  acceptedTotal: number;
  stored?: number;
}

let tagSeq = 0;
async function measure(t: Target, round: number): Promise<Measured> {
  process.stderr.write(`bench ingest: ${t.name}, round ${round} …`);
  const s = await t.start();
  const tag = () => (tagSeq++).toString(16).padStart(4, "0");
  const warm = await wrk(s.url, WARMUP, tag());
  const load1 = os.loadavg()[0]!;
  const cpu0 = cpuSeconds(s.pid);
  const w = await wrk(s.url, SECONDS, tag());
  const cpu = cpuSeconds(s.pid) - cpu0;
  const final = await s.stop();
  const stored = final.storedEvents ?? final.stored;
  // The peer answered one readiness POST before the warm-up.
  const acceptedTotal = warm.accepted + w.accepted;
  process.stderr.write(
    ` ${Math.round(w.accepted / SECONDS)}/s, ${Math.round((cpu * 1e6) / w.accepted)} µs CPU each, p99 ${w.p99} ms (load ${load1.toFixed(2)})\n`,
  );
  return { target: t.name, kind: t.kind, sync: t.sync, round, seconds: SECONDS, ...w, cpuSeconds: cpu, load1, acceptedTotal, stored };
}

const redJs = ensureNodeRed();
const plan: Array<[Target, number]> = [];
for (let round = 1; round <= ROUNDS; round++) {
  plan.push([bare("NORMAL"), round]);
  if ("redJs" in redJs) plan.push([peer(redJs.redJs), round]);
  plan.push([conveyor("NORMAL"), round]);
  if (BASELINE) plan.push([conveyor("NORMAL", { dir: BASELINE, name: `previous build (${path.basename(BASELINE)}) /hooks (NORMAL)` }), round]);
}
if (FULL) plan.push([bare("FULL"), 1], [conveyor("FULL"), 1]);

const loadBefore = os.loadavg();
const runs: Measured[] = [];
for (const [t, round] of plan) runs.push(await measure(t, round));

let profile: ProfileSummary | undefined;
if (process.env.BENCH_PROFILE === "1") {
  const dir = path.join(scratch, "profile");
  const m = await measure(conveyor("NORMAL", { profileDir: dir, name: "Conveyor /hooks (NORMAL, --cpu-prof)" }), 1);
  const file = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => path.join(dir, f))
    .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
  if (file) profile = { ...summarizeCpuProfile(file), deliveries: m.accepted, cpuMicrosPerDelivery: Math.round((m.cpuSeconds * 1e6) / m.accepted) };
  if (process.env.BENCH_PROFILE_KEEP) fs.copyFileSync(file!, process.env.BENCH_PROFILE_KEEP);
}

/** Totals per target over its rounds: deliveries/s, CPU per delivery, worst p99. */
function total(name: string) {
  const rs = runs.filter((r) => r.target === name);
  const accepted = rs.reduce((s, r) => s + r.accepted, 0);
  const seconds = rs.reduce((s, r) => s + r.seconds, 0);
  const cpu = rs.reduce((s, r) => s + r.cpuSeconds, 0);
  const durable = rs.every((r) => r.stored === undefined || (r.stored >= r.acceptedTotal && r.stored - r.acceptedTotal <= 64));
  return {
    target: name,
    kind: rs[0]!.kind,
    sync: rs[0]!.sync,
    rounds: rs.length,
    perSecond: Math.round(accepted / seconds),
    refused: rs.reduce((s, r) => s + r.other, 0),
    p50ms: Math.max(...rs.map((r) => r.p50)),
    p99ms: Math.max(...rs.map((r) => r.p99)),
    cpuMicrosPerDelivery: Math.round((cpu * 1e6) / accepted),
    durable: rs[0]!.stored === undefined ? null : durable,
    stored: rs[0]!.stored === undefined ? null : rs.reduce((s, r) => s + (r.stored ?? 0), 0),
    acceptedTotal: rs.reduce((s, r) => s + r.acceptedTotal, 0),
  };
}
const targets = [...new Set(runs.map((r) => r.target))].map(total);
const find = (kind: Target["kind"], sync?: string) => targets.find((t) => t.kind === kind && (!sync || t.sync === sync));
const cv = find("conveyor", "NORMAL")!;
const ratio = (a?: { perSecond: number }, b?: { perSecond: number }) => (a && b ? Number((a.perSecond / b.perSecond).toFixed(2)) : null);

console.log(
  JSON.stringify({
    bench: "ingest",
    machine: machine(),
    seconds: SECONDS,
    warmup: WARMUP,
    rounds: ROUNDS,
    load: { before: loadBefore, after: os.loadavg() },
    peerError: "error" in redJs ? redJs.error : null,
    targets,
    runs,
    ratios: {
      conveyorVsPeer: ratio(cv, find("peer")),
      conveyorVsBare: ratio(cv, find("bare", "NORMAL")),
      conveyorFullVsBareFull: ratio(find("conveyor", "FULL"), find("bare", "FULL")),
      conveyorVsPrevious: ratio(cv, find("baseline")),
      // Per round, so a load spike in one round shows.
      perRound: Array.from({ length: ROUNDS }, (_, i) => {
        const at = (kind: Target["kind"]) => runs.find((r) => r.round === i + 1 && r.kind === kind && (kind === "peer" || r.sync === "NORMAL"));
        const c = at("conveyor");
        const per = (r?: Measured) => (r ? { perSecond: r.accepted / r.seconds } : undefined);
        return { round: i + 1, vsPeer: ratio(per(c), per(at("peer"))), vsBare: ratio(per(c), per(at("bare"))) };
      }),
    },
    profile,
  }),
);
fs.rmSync(scratch, { recursive: true, force: true });
process.exit(0);
