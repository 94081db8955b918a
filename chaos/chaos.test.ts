/**
 * The chaos suite (issue #11): 2 `conveyor ingress` + 3 `conveyor worker` processes against
 * PostgreSQL 15 and Redis 7 on loopback, each reached through a TCP fault proxy, under a stream of
 * numbered webhook deliveries; after every scenario the invariants of chaos/invariants.ts must hold.
 * Run it with `npm run chaos` (scripts/test.mjs runs it after the PostgreSQL pass); the figures
 * table is printed and written to .ci-out/chaos-figures.md (docs/scale-out.md, "Figures").
 *
 * Durations of the faults (60 s Redis blackhole, 30 s PostgreSQL blackhole) are part of the
 * scenarios; everything else waits for conditions with generous deadlines, and the assertions are
 * counts, never timings.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ready, startCluster, type Cluster, type Member } from "./cluster";
import { checkInvariants, figuresTable, type Figures } from "./invariants";
import { deliver, startEffects, startStream, takeNumber, type Delivery, type Effects, type Stream } from "./load";

const PG_BIN = process.env.CONVEYOR_PG_BIN ?? "/usr/lib/postgresql/15/bin";
const HAVE_SERVERS = fs.existsSync(path.join(PG_BIN, "initdb")) && fs.existsSync("/usr/bin/redis-server");
/** Deliveries per second during every scenario. */
const RATE = Number(process.env.CHAOS_RATE ?? 20);
const RUNNER_KILLS = Number(process.env.CHAOS_RUNNER_KILLS ?? 20);
/** The slow step's duration: long enough that kills land mid-step. */
const SLOW_MS = 1500;
/** Runner leases (CONVEYOR_RUNNER_LEASE_MS): a killed runner's steps resume elsewhere after about this (twice at most). */
const LEASE_MS = 6000;

let c: Cluster;
let effects: Effects;
const all: Delivery[] = [];
const figures: Figures[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}\n${c
          .members()
          .map((m) => m.output().slice(-3000))
          .join("\n")}`,
      );
    await sleep(100);
  }
}
const accepted = (s: Stream, since = 0) => s.records.filter((d) => d.sentAt >= since && d.status === 202).length;
const answered = (s: Stream, status: number, since = 0) => s.records.filter((d) => d.sentAt >= since && d.status === status).length;

/**
 * One scenario: the stream runs, steps are in flight, `fault` does its damage and returns when the
 * fault has ended; then every process must turn ready again, 202s must flow again, every run must
 * end, and the invariants must hold.
 */
async function scenario(name: string, fault: (s: Stream) => Promise<void>): Promise<Figures> {
  const s = startStream(
    c.ingress.map((m) => ({ base: m.base, name: m.name })),
    c.hookPath,
    RATE,
  );
  let faultEnd = 0;
  let readyAt = 0;
  try {
    await until("slow steps in flight before the fault", () => effects.open() >= 5);
    await fault(s);
    faultEnd = Date.now();
    await c.allReady(180_000);
    readyAt = Date.now();
    await until("deliveries accepted again after the fault", () => accepted(s, readyAt) >= 2 * RATE, 120_000);
  } finally {
    all.push(...(await s.stop()));
  }
  const f = await checkInvariants(c, effects, name, s.records, all, { faultEnd, readyAt });
  figures.push(f);
  console.log(`[chaos] ${name}: ${JSON.stringify(f)}`);
  return f;
}

function expectHeld(f: Figures) {
  expect(f.violations).toEqual([]);
  expect(f.lost).toBe(0);
  expect(f.duplicated).toBe(0);
  expect(f.accepted).toBeGreaterThan(0);
}

async function finishedRuns(): Promise<number> {
  const [row] = await c.sql<{ n: number }>("select count(*)::int as n from runs where automation_id = ? and status = 'succeeded'", c.automationId);
  return row!.n;
}

/** The number of slow steps a worker process holds right now (leased to it, i.e. running there). */
async function slowStepsHeldBy(m: Member): Promise<number> {
  const [row] = await c.sql<{ n: number }>(
    "select count(*)::int as n from jobs where status = 'leased' and lease_owner like ? and payload->>'nodeId' = 'slow'",
    `%:${m.pid()}:%`,
  );
  return row!.n;
}

describe.skipIf(!HAVE_SERVERS)("chaos: 2 ingress + 3 runners on PostgreSQL + Redis through fault proxies", () => {
  beforeAll(async () => {
    effects = await startEffects(SLOW_MS);
    c = await startCluster({ effectsUrl: effects.url, leaseMs: LEASE_MS });
  }, 300_000);

  // A process that died in a scenario fails that scenario (readiness names it); the next one starts whole.
  beforeEach(async () => {
    c.pgProxy.set("pass");
    c.redisProxy.set("pass");
    for (const m of c.members()) if (!m.alive()) m.respawn();
    await c.allReady(180_000);
  }, 300_000);

  afterAll(async () => {
    if (figures.length) {
      const table = figuresTable(figures);
      console.log(`\n[chaos] figures (rate ${RATE}/s, slow step ${SLOW_MS} ms, lease ${LEASE_MS} ms)\n${table}\n`);
      const out = path.resolve(import.meta.dirname, "../.ci-out");
      fs.mkdirSync(out, { recursive: true });
      fs.writeFileSync(path.join(out, "chaos-figures.md"), `${table}\n`);
    }
    if (c) {
      const out = path.resolve(import.meta.dirname, "../.ci-out");
      fs.mkdirSync(out, { recursive: true });
      fs.writeFileSync(
        path.join(out, "chaos-processes.log"),
        c
          .members()
          .map((m) => m.output())
          .join("\n"),
      );
    }
    await c?.close();
    await effects?.close();
  }, 120_000);

  it(`kill -9 of a runner mid-step, ${RUNNER_KILLS} times (restarted each time)`, async () => {
    let midStep = 0;
    const f = await scenario(`runner kill -9 mid-step ×${RUNNER_KILLS}`, async () => {
      for (let k = 0; k < RUNNER_KILLS; k++) {
        const w = c.workers[k % c.workers.length]!;
        // Kills under load, not a standstill: before each one the cluster has finished a second's worth
        // of runs since the previous kill (the pace follows the machine, however loaded).
        const done = await finishedRuns();
        await until("runs finishing between kills", async () => (await finishedRuns()) >= done + RATE, 180_000);
        await ready(w, 180_000);
        await until(`${w.name} running a slow step`, async () => (await slowStepsHeldBy(w)) > 0);
        // Into the step: a step claimed a moment ago is now waiting on the slow HTTP answer.
        await sleep(SLOW_MS / 2);
        await w.kill9();
        midStep++;
        w.respawn();
      }
    });
    expect(midStep).toBe(RUNNER_KILLS);
    expectHeld(f);
    // The killed runners' steps ran again elsewhere (at least once), yet each recorded one outcome.
    expect(f.rerun).toBeGreaterThan(0);
  }, 900_000);

  it("kill -9 of an ingress process", async () => {
    const f = await scenario("ingress kill -9", async (s) => {
      const victim = c.ingress[0]!;
      const t0 = Date.now();
      await until("the ingress accepting", () => s.records.some((d) => d.target === victim.name && d.sentAt >= t0 && d.status === 202));
      await victim.kill9();
      // The stream keeps sending to it: connection refused, no answer (a load balancer would retry elsewhere).
      await until("deliveries finding it gone", () => s.records.some((d) => d.target === victim.name && d.answeredAt && d.error));
      victim.respawn();
    });
    expectHeld(f);
    expect(f.noAnswer).toBeGreaterThan(0);
  }, 600_000);

  for (const empty of [false, true]) {
    it(`kill -9 of Redis, restarted ${empty ? "with an empty data directory" : "with its AOF"}`, async () => {
      const f = await scenario(`Redis kill -9, restart ${empty ? "empty" : "with AOF"}`, async (s) => {
        c.redis.kill();
        const t0 = Date.now();
        // Ingress keeps accepting into PostgreSQL's outbox while Redis is gone.
        await until("deliveries accepted without Redis", () => accepted(s, t0) >= 2 * RATE);
        await c.redis.restart({ empty });
      });
      expectHeld(f);
    }, 600_000);
  }

  it("PostgreSQL immediate stop (pg_ctl stop -m immediate), then start", async () => {
    const f = await scenario("PostgreSQL stop -m immediate, start", async (s) => {
      c.pg.halt("immediate");
      const t0 = Date.now();
      try {
        await until("deliveries refused with 503 while PostgreSQL is down", () => answered(s, 503, t0) >= RATE);
      } finally {
        await c.pg.restart();
      }
    });
    expectHeld(f);
    expect(f.refused["503"]).toBeGreaterThan(0);
  }, 600_000);

  it("Redis blackholed for 60 s", async () => {
    const f = await scenario("Redis blackhole 60 s", async () => {
      c.redisProxy.set("blackhole");
      await sleep(60_000);
      c.redisProxy.set("pass");
    });
    expectHeld(f);
  }, 600_000);

  it("PostgreSQL blackholed for 30 s", async () => {
    const f = await scenario("PostgreSQL blackhole 30 s", async () => {
      c.pgProxy.set("blackhole");
      await sleep(30_000);
      c.pgProxy.set("pass");
    });
    expectHeld(f);
    expect(f.refused["503"]).toBeGreaterThan(0);
  }, 600_000);

  it("100 copies of one delivery sent to both ingress processes at once start exactly one run", async () => {
    await c.allReady();
    const n = takeNumber();
    const t0 = Date.now();
    const copies = await Promise.all(Array.from({ length: 100 }, (_, i) => c.ingress[i % 2]!).map((m) => deliver(m.base, c.hookPath, n, m.name)));
    all.push(...copies);
    const f = await checkInvariants(c, effects, "100 copies of one delivery, both ingress at once", copies, all, { faultEnd: t0 });
    f.readyS = undefined;
    figures.push(f);
    console.log(`[chaos] copies: ${JSON.stringify(f)}`);
    expectHeld(f);
    expect(copies.map((d) => d.status)).toEqual(Array(100).fill(202));
    expect(copies.reduce((k, d) => k + (d.body?.accepted ?? 0), 0)).toBe(1);
    expect(copies.reduce((k, d) => k + (d.body?.duplicates ?? 0), 0)).toBe(99);
    expect(f.runs).toBe(1);
    expect(f.succeeded).toBe(1);
  }, 300_000);
});
