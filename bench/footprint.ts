/**
 * What `npm start` costs in processes, memory and start-up (needs the production build: npm run build).
 * Runs `npm start` itself (in its own process group, stopped like Ctrl+C) on a throwaway data dir:
 * 1. first start (migrations on an empty database), then a restart with the build present: time from
 *    spawning `npm start` to the first 200 of /api/health and of the sign-in page;
 * 2. the process tree under npm (npm, then the server: no wrapper between them) and its RSS when idle,
 *    5 s and 25 s after start (V8 gives memory back when idle);
 * 3. BENCH_FOOTPRINT_RUNS (default 100,000) webhook deliveries (core.webhook → 3 core.filter) through
 *    the server's /hooks, every run finished (all kept: retention raised): the tree's RSS at its peak
 *    during the burst (sampled every 250 ms), as the last run ends, 1 s and 25 s later;
 * 4. then an editor session in Chromium (sign in, the automation list, an automation's editor, its runs),
 *    then the tree's RSS right after and 25 s later.
 * Prints one JSON line (scripts/bench.mjs convention).
 */
import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { chromium } from "@playwright/test";
import { hasBuild } from "./app";
import { BODY } from "./harness";

const root = path.resolve(import.meta.dirname, "..");
const RUNS = Number(process.env.BENCH_FOOTPRINT_RUNS ?? 100_000);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 25_000);
if (!hasBuild()) {
  console.log(JSON.stringify({ bench: "footprint", skipped: "no production build: run `npm run build` first" }));
  process.exit(0);
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const execFileAsync = (file: string, args: string[], options: { encoding: "utf8"; maxBuffer: number }) =>
  new Promise<string>((resolve, reject) => execFile(file, args, options, (e, stdout) => (e ? reject(e) : resolve(stdout))));

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "conveyor-footprint-bench-"));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
// Without NODE_ENV: npm start sets production itself.
const { NODE_ENV: _nodeEnv, ...inherited } = process.env;
const env = {
  ...inherited,
  PORT: String(port),
  HOST: "127.0.0.1",
  CONVEYOR_DATA_DIR: dataDir,
  CONVEYOR_PUBLIC_URL: base,
  NEXTAUTH_URL: base,
  LOG_LEVEL: "warn",
  NEXT_TELEMETRY_DISABLED: "1",
  // Every run is kept (the default retention of 10,000 per automation would prune the history the bench counts).
  CONVEYOR_RUN_RETENTION_COUNT: "1000000",
  // npm start runs under the node npm finds first on PATH: the pinned one.
  PATH: `${path.join(root, "node_modules", ".bin")}:${process.env.PATH}`,
} as unknown as NodeJS.ProcessEnv;

const cli = (args: string[]) =>
  execFileSync(process.execPath, ["bin/conveyor.mjs", ...args], { cwd: root, env, encoding: "utf8" })
    .trim()
    .split("\n")
    .pop()!;
const email = "footprint@example.test";
const password = "footprint password 123";
const workspaceId = cli(["owner", "create", "--email", email, "--password", password, "--name", "Footprint"]);
const apiKey = cli(["keys", "create", "--name", "footprint", "--role", "admin"]);

interface Proc {
  pid: number;
  ppid: number;
  rssMB: number;
  cmd: string;
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const rss = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${d}/status`, "utf8"))?.[1] ?? 0);
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0").join(" ").trim();
      out.push({ pid: Number(d), ppid: Number(f[1]), rssMB: Math.round(rss / 1024), cmd });
    } catch {
      /* gone */
    }
  }
  return out;
}

/** npm and every process under it. */
function tree(rootPid: number): Proc[] {
  const all = processes();
  const found = all.filter((p) => p.pid === rootPid);
  for (let i = 0; i < found.length; i++) found.push(...all.filter((p) => p.ppid === found[i]!.pid));
  return found;
}
const treeRss = (pid: number) => tree(pid).reduce((s, p) => s + p.rssMB, 0);

async function until200(url: string, since: number, child: ChildProcess, ms = 300_000): Promise<number> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode})`);
    const ok = await fetch(url, { redirect: "manual" }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return Math.round(performance.now() - since);
    if (performance.now() - since > ms) throw new Error(`${url} did not answer 200`);
    await sleep(10);
  }
}

let log = "";
async function npmStart(): Promise<{ child: ChildProcess; healthMs: number; pageMs: number }> {
  const t0 = performance.now();
  const child = spawn("npm", ["start"], { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (d) => (log += d));
  child.stderr!.on("data", (d) => (log += d));
  const healthMs = await until200(`${base}/api/health`, t0, child);
  const pageMs = await until200(`${base}/sign-in`, t0, child);
  return { child, healthMs, pageMs };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once("exit", r));
  process.kill(-child.pid!, "SIGINT"); // what Ctrl+C does in a terminal
  await exited;
  // The server finishes in-flight work, then exits: wait for the port to close.
  for (
    let i = 0;
    i < 200 &&
    (await fetch(`${base}/api/health`).then(
      () => true,
      () => false,
    ));
    i++
  )
    await sleep(50);
}

/**
 * The server's memory (MB): V8 heap used / total and memory held outside it for JavaScript (Buffers)
 * from GET /metrics; the server process's RSS split into anonymous memory and mapped files
 * (/proc/<pid>/smaps_rollup), so a reader can tell the heap from native allocations.
 */
async function heapMB(): Promise<{ used: number; total: number; external: number; anon: number; file: number }> {
  // A fresh connection (a kept-alive one may be closed by the server while the bench waited).
  const get = () => fetch(`${base}/metrics`, { headers: { connection: "close" } }).then((r) => r.text());
  const text = await get().catch(get);
  const v = (name: string) => Math.round(Number(new RegExp(`^${name} (\\S+)`, "m").exec(text)?.[1] ?? NaN) / 2 ** 20);
  const server = tree(npm.pid!).find((p) => p.pid !== npm.pid);
  const rollup = server ? fs.readFileSync(`/proc/${server.pid}/smaps_rollup`, "utf8") : "";
  const kB = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(rollup)?.[1] ?? NaN);
  return {
    used: v("conveyor_process_nodejs_heap_size_used_bytes"),
    total: v("conveyor_process_nodejs_heap_size_total_bytes"),
    external: v("conveyor_process_nodejs_external_memory_bytes"),
    anon: Math.round(kB("Anonymous") / 1024),
    file: Math.round((kB("Rss") - kB("Anonymous")) / 1024),
  };
}

async function api(method: string, p: string, body?: unknown) {
  const res = await fetch(`${base}/api/v1/factories/${workspaceId}${p}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown>>;
}

const first = await npmStart();
await stop(first.child);
const restart = await npmStart();
const npm = restart.child;
const procs = tree(npm.pid!).map((p) => ({ rssMB: p.rssMB, cmd: p.cmd.slice(0, 120) }));
const serverProcs = tree(npm.pid!).filter((p) => p.pid !== npm.pid && / node|^node|\/node /.test(` ${p.cmd}`));
await sleep(5000);
const idle5 = treeRss(npm.pid!);
await sleep(SETTLE_MS - 5000);
const idle = treeRss(npm.pid!);

// The automation the runs go through (created over REST).
const doc = {
  name: "Footprint",
  enabled: true,
  concurrency: 1000,
  graph: {
    nodes: [
      { id: "t", name: "hook", key: "core.webhook", config: {} },
      { id: "s1", name: "s1", key: "core.filter", config: { condition: "{{ $trigger.data.body.status = 'firing' }}" } },
      { id: "s2", name: "s2", key: "core.filter", config: { condition: "{{ $count($trigger.data.body.alerts) > 0 }}" } },
      { id: "s3", name: "s3", key: "core.filter", config: { condition: "{{ $steps.s1.data.passed and $steps.s2.data.passed }}" } },
    ],
    edges: [
      { from: "t", to: "s1" },
      { from: "s1", to: "s2" },
      { from: "s2", to: "s3" },
    ],
  },
};
const app = await api("POST", "/apps", doc);

// Runs through the server's webhook door.
const hook = ((app.triggers as Array<{ url?: string }> | undefined)?.find((t) => t.url)?.url ?? "").replace(/^https?:\/\/[^/]+/, base);
if (!hook) throw new Error(`no webhook URL in ${JSON.stringify(app).slice(0, 300)}`);
const bodyFile = path.join(dataDir, "body.json");
fs.writeFileSync(bodyFile, BODY);
const t0 = performance.now();
// The tree's RSS is sampled every 250 ms from the first delivery until the last run ends: its peak is
// what a memory limit (a container's, say) has to allow for.
let peakDuringRuns = 0;
const sampler = setInterval(() => (peakDuringRuns = Math.max(peakDuringRuns, treeRss(npm.pid!))), 250);
const loadOut = await execFileAsync(
  process.execPath,
  [
    path.join(root, "node_modules/autocannon/autocannon.js"),
    "-j",
    "-c",
    "32",
    "-a",
    String(RUNS),
    "-m",
    "POST",
    "-H",
    "content-type=application/json",
    "-i",
    bodyFile,
    hook,
  ],
  { encoding: "utf8", maxBuffer: 64 * 2 ** 20 },
);
const accepted = (JSON.parse(loadOut) as { "2xx": number })["2xx"];
const db = new Database(path.join(dataDir, "conveyor.db"), { readonly: true });
const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
let finished = 0;
for (const until = Date.now() + 600_000; Date.now() < until; await sleep(500)) {
  finished = count("select count(*) as n from runs where status in ('succeeded', 'failed')");
  if (count("select count(*) as n from jobs") > 0) continue;
  // Every accepted delivery's run ended (counted from the events: a pruning pass would lower the run count).
  if (
    finished >= accepted ||
    (count("select count(*) as n from runs where status not in ('succeeded', 'failed', 'cancelled')") === 0 &&
      count("select count(*) as n from events") >= accepted)
  )
    break;
}
const runSeconds = (performance.now() - t0) / 1000;
clearInterval(sampler);
const afterRuns = treeRss(npm.pid!);
peakDuringRuns = Math.max(peakDuringRuns, afterRuns);
const heapAfterRuns = await heapMB();
// One second after the last run ended (the server gives memory back once its event loop is idle:
// server/memory-reducer.ts).
await sleep(Math.max(0, 1000 - (performance.now() - t0 - runSeconds * 1000)));
const afterRuns1s = treeRss(npm.pid!);
const stepsRecorded = count("select count(*) as n from run_steps where status = 'succeeded'");
db.close();
await sleep(SETTLE_MS);
const afterRunsIdle = treeRss(npm.pid!);
const heapAfterRunsIdle = await heapMB();

// Then an editor session (pages load Next.js route code the runs did not need).
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--headless", "--disable-gpu"],
});
try {
  const page = await (await browser.newContext({ baseURL: base, viewport: { width: 1440, height: 900 } })).newPage();
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/automations/);
  for (const p of [
    `/w/${workspaceId}/automations/${app.id}`,
    `/w/${workspaceId}/runs`,
    `/w/${workspaceId}/connections`,
    `/w/${workspaceId}/automations`,
    `/w/${workspaceId}/usage`,
  ]) {
    await page.goto(p);
    await page.waitForLoadState("networkidle");
  }
} finally {
  await browser.close();
}
const afterEditor = treeRss(npm.pid!);
await sleep(SETTLE_MS);
const afterEditorIdle = treeRss(npm.pid!);

await stop(npm);
fs.rmSync(dataDir, { recursive: true, force: true });

console.log(
  JSON.stringify({
    bench: "footprint",
    firstStart: { healthMs: first.healthMs, pageMs: first.pageMs },
    restart: { healthMs: restart.healthMs, pageMs: restart.pageMs },
    processes: procs,
    serverProcesses: serverProcs.length,
    rssMB: { idleAt5s: idle5, idle, peakDuringRuns, afterRuns1s, afterEditor, afterEditorIdle, afterRuns, afterRunsIdle },
    heapMB: { afterRuns: heapAfterRuns, afterRunsIdle: heapAfterRunsIdle },
    runs: { accepted, finished, stepsRecorded, seconds: Number(runSeconds.toFixed(1)), perSecond: Math.round(finished / runSeconds) },
    settleMs: SETTLE_MS,
    readyLine: /ready on .* in (\d+) ms/.exec(log)?.[1] ? Number(/ready on .* in (\d+) ms/.exec(log)![1]) : null,
  }),
);
process.exit(0);
