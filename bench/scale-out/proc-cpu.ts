/**
 * CPU time of process trees from /proc (Linux): user + system time of a process and all its live
 * descendants, plus what their already-exited children used (cutime/cstime). Reading /proc makes
 * the figure independent of what else runs on the machine: it is the time these processes spent
 * on a CPU, not the wall-clock share they got.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";

const HZ = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

interface Stat {
  ppid: number;
  ticks: number;
}

function readStat(pid: number): Stat | undefined {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after "(comm) ": state ppid … utime(14) stime(15) cutime(16) cstime(17).
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) };
  } catch {
    return undefined; // exited meanwhile
  }
}

/** Milliseconds of CPU used so far by each tree (keyed by its root pid). */
export function treeCpuMs(roots: number[]): Map<number, number> {
  const stats = new Map<number, Stat>();
  for (const name of fs.readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const st = readStat(pid);
    if (st) stats.set(pid, st);
  }
  const children = new Map<number, number[]>();
  for (const [pid, st] of stats) {
    const list = children.get(st.ppid) ?? [];
    list.push(pid);
    children.set(st.ppid, list);
  }
  const out = new Map<number, number>();
  for (const root of roots) {
    let ticks = 0;
    const stack = [root];
    while (stack.length) {
      const pid = stack.pop()!;
      ticks += stats.get(pid)?.ticks ?? 0;
      stack.push(...(children.get(pid) ?? []));
    }
    out.set(root, (ticks * 1000) / HZ);
  }
  return out;
}

/** CPU used by groups of process trees between `start()` and `stop()`, in ms per group. */
export function cpuMeter<G extends string>(groups: Record<G, () => number[]>) {
  const sample = () => {
    const res = {} as Record<G, number>;
    for (const g of Object.keys(groups) as G[]) {
      const roots = groups[g]();
      res[g] = [...treeCpuMs(roots).values()].reduce((a, b) => a + b, 0);
    }
    return res;
  };
  const first = sample();
  return {
    stop(): Record<G, number> {
      const last = sample();
      const d = {} as Record<G, number>;
      for (const g of Object.keys(groups) as G[]) d[g] = Math.round(last[g] - first[g]);
      return d;
    },
  };
}

/** The postmaster's pid (first line of postmaster.pid in the data directory). */
export function postmasterPid(dataDir: string): number {
  return Number(fs.readFileSync(`${dataDir}/postmaster.pid`, "utf8").split("\n")[0]);
}

/** CPU used so far by this process's exited, waited-for children (e.g. a load generator that has finished). */
export function selfChildrenCpuMs(): number {
  const s = fs.readFileSync("/proc/self/stat", "utf8");
  const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
  return ((Number(f[13]) + Number(f[14])) * 1000) / HZ;
}

/** Share of the machine's CPU time that was idle over `ms` (from /proc/stat: idle + iowait over all). */
export async function idleShare(ms: number): Promise<number> {
  const read = () => {
    const f = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    return { idle: f[3]! + f[4]!, all: f.reduce((a, b) => a + b, 0) };
  };
  const a = read();
  await new Promise((r) => setTimeout(r, ms));
  const b = read();
  return b.all > a.all ? (b.idle - a.idle) / (b.all - a.all) : 1;
}

/**
 * Waits until the machine is quiet before a measured phase: dirty pages written back (`sync`: a
 * previous phase's or run's PostgreSQL files otherwise get flushed during this one) and at least
 * `minIdle` of the CPU idle over a second, for at most `maxMs`. Returns the idle share reached.
 */
export async function settle(minIdle = 0.9, maxMs = 30_000): Promise<number> {
  execFileSync("sync");
  const until = Date.now() + maxMs;
  let idle = await idleShare(1000);
  while (idle < minIdle && Date.now() < until) idle = await idleShare(1000);
  return Math.round(idle * 100) / 100;
}

const REFERENCE_WORK = `const { createHash } = require("node:crypto");
const buf = Buffer.alloc(1024, 7);
let x = 0;
const t0 = process.cpuUsage();
for (let i = 0; i < 100000; i++) {
  x ^= createHash("sha256").update(buf).digest()[0];
  x ^= JSON.parse(JSON.stringify({ a: i, b: "x".repeat(50), c: [1, 2, 3] })).a & 1;
}
const u = process.cpuUsage(t0);
process.stdout.write(String((u.user + u.system) / 1000 + (x & 0)));`;

/**
 * The machine's speed right now: CPU milliseconds a fresh Node process needs for a fixed piece of work
 * (hashing and JSON, the ingress's kind of work), best of three, taken next to each measured phase so
 * a slower machine can be told from a slower build. (On 2026-11-24 it stayed within 305–318 ms while
 * the CPU per delivery of the same build varied by a third between runs: that variation is not the
 * JavaScript engine's speed.)
 */
export function machineReferenceMs(): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) best = Math.min(best, Number(execFileSync(process.execPath, ["-e", REFERENCE_WORK], { encoding: "utf8" })));
  return Math.round(best);
}
