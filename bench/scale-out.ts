/**
 * Both modes side by side (issue #11): prints one JSON line.
 *
 * Embedded (SQLite, one process): the pre-seam build and this one, same scripts and load, alternately
 * (bench/scale-out/embedded.ts).
 *
 * Scale-out (PostgreSQL 15 + Redis 7 on loopback, started here; real `npx conveyor ingress` and
 * `npx conveyor worker` processes), on one fresh database:
 * 1. latency: 2 ingress + 3 workers, deliveries at an even pace (bench/scale-out/paced.ts; BENCH_SO_RATE, default 100/s),
 *    delivery → run finished;
 * 2. durable ingest with 1, then 2 ingress processes (no runner running): wrk with distinct alerts,
 *    32 connections in all; every 202 is checked against the events stored; CPU of the ingress
 *    processes, PostgreSQL and Redis read from /proc;
 * 3. completed 3-step runs per second with 1, then 3 worker processes draining the backlog the ingest
 *    phases left (runs counted by SQL over a fixed window, CPU from /proc).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BODY, pct } from "./harness";
import { startCluster, wrk, PG_SETTINGS, type Cluster } from "./scale-out/cluster";
import { DEFAULT_PRESEAM_DIR, embeddedSideBySide } from "./scale-out/embedded";
import { cpuMeter, machineReferenceMs, selfChildrenCpuMs, settle } from "./scale-out/proc-cpu";
import { paced } from "./scale-out/paced";

const SECONDS = Number(process.env.BENCH_SO_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_SO_CONNECTIONS ?? 32);
const RUN_SECONDS = Number(process.env.BENCH_SO_RUN_SECONDS ?? 15);
// Below what the workers complete on this shared machine (a rate above it only measures the queue growing).
const RATE = Number(process.env.BENCH_SO_RATE ?? 100);
const ONLY = process.env.BENCH_SO_ONLY ?? ""; // "embedded" | "scale-out" (development)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (m: string) => process.stderr.write(`scale-out: ${m}\n`);

const embedded = ONLY === "scale-out" ? null : embeddedSideBySide(process.env.BENCH_PRESEAM_DIR ?? DEFAULT_PRESEAM_DIR, SECONDS);

async function latencyPhase(c: Cluster, bodyFile: string) {
  log(`latency at ${RATE} deliveries/s with 2 ingress and 3 worker processes`);
  const ingress = await Promise.all([c.ingress(), c.ingress()]);
  const workers = await Promise.all([c.worker(), c.worker(), c.worker()]);
  const template = fs.readFileSync(bodyFile, "utf8");
  const urls = ingress.map((p) => `${p.base}/hooks/${c.token}`);
  // Two seconds at the same pace first, not counted: the processes just started (JIT, pools, first claims).
  await paced(urls, (i) => template.replace('"alertname":"AlwaysFiring', `"alertname":"AlwaysFiring-warm-${i}`), RATE, 2);
  const mark = new Date().toISOString();
  // An even pace over both ingress processes, a distinct alert each (bench/scale-out/paced.ts).
  const sent = await paced(urls, (i) => template.replace('"alertname":"AlwaysFiring', `"alertname":"AlwaysFiring-lat-${i}`), RATE, 8);
  const accepted = sent.accepted;
  const until = Date.now() + 120_000;
  while (
    Date.now() < until &&
    (await c.count("select count(*) as n from runs r join events e on e.id = r.event_id where e.received_at >= $1 and r.finished_at is not null", [mark])) <
      accepted
  )
    await sleep(200);
  const rows = await c.pool.query<{ ms: number }>(
    `select extract(epoch from (r.finished_at::timestamptz - e.received_at::timestamptz)) * 1000 as ms
     from runs r join events e on e.id = r.event_id where e.received_at >= $1 and r.finished_at is not null`,
    [mark],
  );
  const lat = rows.rows.map((r) => Number(r.ms)).sort((a, b) => a - b);
  await Promise.all([...ingress, ...workers].map((p) => p.stop()));
  return {
    rate: RATE,
    ingress: 2,
    workers: 3,
    accepted,
    finished: lat.length,
    p50ms: Math.round(pct(lat, 50)),
    p99ms: Math.round(pct(lat, 99)),
    ingestP99ms: sent.p99ms,
    refused: sent.other,
  };
}

async function ingestPhase(c: Cluster, n: number, bodyFile: string) {
  log(`ingest with ${n} ingress process(es)`);
  const procs = await Promise.all(Array.from({ length: n }, () => c.ingress()));
  const conns = Math.floor(CONNECTIONS / n);
  const threads = n === 1 ? 2 : 1;
  await Promise.all(procs.map((p, i) => wrk(p.base, c.token, { seconds: 2, threads, connections: conns, tag: `w${n}${i}`, bodyFile })));
  const idleBefore = await settle();
  const machineRefMs = machineReferenceMs();
  const events0 = await c.count("select count(*) as n from events");
  if (process.env.BENCH_SO_PGSS === "1") await c.resetStatements();
  const meter = cpuMeter({ node: () => procs.map((p) => p.child.pid!), pg: () => [c.pgPid], redis: () => [c.redisPid] });
  const wrkCpu0 = selfChildrenCpuMs();
  const t0 = performance.now();
  const outs = await Promise.all(procs.map((p, i) => wrk(p.base, c.token, { seconds: SECONDS, threads, connections: conns, tag: `m${n}${i}`, bodyFile })));
  const secs = (performance.now() - t0) / 1000;
  const cpu = meter.stop();
  const loadGenMs = Math.round(selfChildrenCpuMs() - wrkCpu0);
  const stored = (await c.count("select count(*) as n from events")) - events0;
  const statements = process.env.BENCH_SO_PGSS === "1" ? await c.topStatements() : undefined;
  const statementCount = process.env.BENCH_SO_PGSS === "1" ? await c.statementCount() : undefined;
  // Everything accepted is also published: the outbox drains once the last publishes land.
  const until = Date.now() + 30_000;
  while (Date.now() < until && (await c.count("select count(*) as n from outbox")) > 0) await sleep(100);
  const outboxLeft = await c.count("select count(*) as n from outbox");
  await Promise.all(procs.map((p) => p.stop()));
  const accepted = outs.reduce((a, o) => a + o.accepted, 0);
  const per = (ms: number) => Math.round((ms * 1000) / accepted);
  return {
    ingress: n,
    // Idle share of the machine's CPU right before the measured window (bench/scale-out/proc-cpu.ts settle).
    idleBefore,
    // CPU ms of a fixed piece of work right before the window (lower is a faster machine; proc-cpu.ts).
    machineRefMs,
    connections: conns * n,
    seconds: Math.round(secs * 10) / 10,
    accepted,
    refused: outs.reduce((a, o) => a + o.refused, 0),
    perSecond: Math.round(accepted / secs),
    p50ms: Math.max(...outs.map((o) => o.p50ms)),
    p90ms: Math.max(...outs.map((o) => o.p90ms)),
    p99ms: Math.max(...outs.map((o) => o.p99ms)),
    storedEvents: stored,
    allAcceptedDurable: stored >= accepted,
    outboxLeft,
    cpuMs: { ...cpu, loadGenerator: loadGenMs },
    cpuMicrosPerDelivery: {
      node: per(cpu.node),
      pg: per(cpu.pg),
      redis: per(cpu.redis),
      nodePlusPg: per(cpu.node + cpu.pg),
      all: per(cpu.node + cpu.pg + cpu.redis),
      loadGenerator: per(loadGenMs),
    },
    statementsPerDelivery: statementCount === undefined ? undefined : Math.round((statementCount / Math.max(1, accepted)) * 1000) / 1000,
    statements,
  };
}

async function runPhase(c: Cluster, n: number) {
  log(`runs with ${n} worker process(es)`);
  const backlog = await c.count("select count(*) as n from runs where status in ('queued', 'running')");
  const procs = await Promise.all(Array.from({ length: n }, () => c.worker()));
  await sleep(3000); // warm-up: JIT, pools, the first claims
  if (process.env.BENCH_SO_PGSS === "1") await c.resetStatements();
  const done0 = await c.count("select count(*) as n from runs where status = 'succeeded'");
  const meter = cpuMeter({ node: () => procs.map((p) => p.child.pid!), pg: () => [c.pgPid], redis: () => [c.redisPid] });
  const t0 = performance.now();
  await sleep(RUN_SECONDS * 1000);
  const done1 = await c.count("select count(*) as n from runs where status = 'succeeded'");
  const secs = (performance.now() - t0) / 1000;
  const cpu = meter.stop();
  const statements = process.env.BENCH_SO_PGSS === "1" ? await c.topStatements() : undefined;
  const statementCount = process.env.BENCH_SO_PGSS === "1" ? await c.statementCount() : undefined;
  const left = await c.count("select count(*) as n from runs where status in ('queued', 'running')");
  await Promise.all(procs.map((p) => p.stop()));
  const runs = done1 - done0;
  const per = (ms: number) => Math.round((ms * 1000) / Math.max(1, runs));
  return {
    workers: n,
    seconds: Math.round(secs * 10) / 10,
    backlogAtStart: backlog,
    runs,
    runsPerSecond: Math.round(runs / secs),
    backlogLeft: left,
    cpuMs: cpu,
    cpuMicrosPerRun: {
      node: per(cpu.node),
      pg: per(cpu.pg),
      redis: per(cpu.redis),
      nodePlusPg: per(cpu.node + cpu.pg),
      all: per(cpu.node + cpu.pg + cpu.redis),
    },
    // Every statement PostgreSQL executed in the window (the counting queries of this script included), per completed run.
    statementsPerRun: statementCount === undefined ? undefined : Math.round((statementCount / Math.max(1, runs)) * 10) / 10,
    statements,
  };
}

async function scaleOut() {
  const profileDir = process.env.BENCH_SO_PROFILE_DIR;
  const c = await startCluster({ pgss: process.env.BENCH_SO_PGSS === "1", profileDir });
  const bodyFile = path.join(os.tmpdir(), `conveyor-sobench-body-${process.pid}.json`);
  fs.writeFileSync(bodyFile, BODY);
  try {
    const phases = (process.env.BENCH_SO_PHASES ?? "latency,ingest1,ingest2,runs1,runs3").split(",");
    const latency = phases.includes("latency") ? await latencyPhase(c, bodyFile) : null;
    const ingest = [];
    if (phases.includes("ingest1")) ingest.push(await ingestPhase(c, 1, bodyFile));
    if (phases.includes("ingest2")) ingest.push(await ingestPhase(c, 2, bodyFile));
    const runs = [];
    if (phases.includes("runs1")) runs.push(await runPhase(c, 1));
    if (phases.includes("runs3")) runs.push(await runPhase(c, 3));
    const succeeded = await c.count("select count(*) as n from runs where status = 'succeeded'");
    const steps = await c.count("select count(*) as n from run_steps s join runs r on r.id = s.run_id where r.status = 'succeeded' and s.status = 'succeeded'");
    const notSucceeded = await c.count("select count(*) as n from runs where status not in ('succeeded', 'queued', 'running')");
    const duplicateRuns = await c.count("select count(*) as n from (select event_id from runs group by event_id having count(*) > 1) d");
    return {
      pgSettings: PG_SETTINGS,
      connections: CONNECTIONS,
      latency,
      ingest,
      runs,
      checks: {
        succeededRuns: succeeded,
        stepsOfSucceededRuns: steps,
        everyStepRecorded: steps === succeeded * 3,
        notSucceeded,
        eventsWithTwoRuns: duplicateRuns,
      },
    };
  } finally {
    fs.rmSync(bodyFile, { force: true });
    await c.stop();
  }
}

const so = ONLY === "embedded" ? null : await scaleOut();
console.log(JSON.stringify({ bench: "scale-out", cores: os.cpus().length, embedded, scaleOut: so }));
process.exit(0);
