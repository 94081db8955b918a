// The "Scale-out" section of docs/benchmarks.md, from the JSON line of bench/scale-out.ts
// (scripts/bench.mjs calls this; plain JavaScript because that script runs without tsx).

const yes = (v) => (v ? "met" : "**not met**");
const pct = (v) => `${v > 0 ? "+" : ""}${v} %`;

function embeddedSection(e) {
  if (!e) return "Skipped: no pre-seam checkout (see *How to run* below).";
  const within = (v) => Math.abs(v) <= 5 || v > 0;
  const rows = [
    [
      "webhook ingest, accepted deliveries/s (wrk -t2 -c32, mean of 2)",
      `${e.before.ingest.perSecond} (${e.before.ingest.runs.join(", ")})`,
      `${e.after.ingest.perSecond} (${e.after.ingest.runs.join(", ")})`,
      pct(e.change.ingestPerSecond),
      within(e.change.ingestPerSecond),
    ],
    ["ingest p99, ms (worst of 2)", e.before.ingest.p99ms, e.after.ingest.p99ms, "", true],
    [
      "server CPU per delivery, µs (lower is better)",
      e.before.ingest.serverCpuMicrosPerDelivery,
      e.after.ingest.serverCpuMicrosPerDelivery,
      pct(e.change.ingestCpuPerDelivery),
      within(-e.change.ingestCpuPerDelivery),
    ],
    [
      "20,000 queued 3-step runs drained, runs/s (mean of 2)",
      `${e.before.runs.runsPerSecond} (${e.before.runs.runs.join(", ")})`,
      `${e.after.runs.runsPerSecond} (${e.after.runs.runs.join(", ")})`,
      pct(e.change.runsPerSecond),
      within(e.change.runsPerSecond),
    ],
    [
      "CPU of the whole runner script, ms (same work both sides; lower is better)",
      e.before.runs.scriptCpuMs,
      e.after.runs.scriptCpuMs,
      pct(e.change.runnerScriptCpu),
      within(-e.change.runnerScriptCpu),
    ],
  ];
  return `| embedded mode (SQLite, one process) | before the seam (${e.commit}) | now | change | within 5 % |
|---|---|---|---|---|
${rows.map(([m, b, a, c, ok]) => `| ${m} | ${b} | ${a} | ${c} | ${c ? yes(ok) : ""} |`).join("\n")}

Both sides ran the same scripts (bench/ingest.ts, bench/runner.ts of their own tree) with the same load in this run, in
the order before, now, now, before, so a drift of the load on the shared machine affects both alike. The rates depend on
that load; the CPU figures (user + system time from /proc) much less. Every accepted delivery durable: before
${e.before.ingest.allAcceptedDurable ? "yes" : "**no**"}, now ${e.after.ingest.allAcceptedDurable ? "yes" : "**no**"}; steps recorded ${e.before.runs.stepsRecorded} / ${e.after.runs.stepsRecorded}.`;
}

export function scaleOutMarkdown(r) {
  const so = r.scaleOut;
  if (!so) return `## Scale-out (bench/scale-out.ts)\n\nSkipped.\n`;
  const one = so.ingest.find((i) => i.ingress === 1) ?? so.ingest[0];
  const best = so.ingest.reduce((a, b) => (b.perSecond > a.perSecond ? b : a), so.ingest[0]);
  const cpu = Math.min(...so.ingest.map((i) => i.cpuMicrosPerDelivery.nodePlusPg));
  const cpuAll = Math.min(...so.ingest.map((i) => i.cpuMicrosPerDelivery.all));
  const predicted = Math.round((4 * 1e6) / cpu);
  const predictedAll = Math.round((4 * 1e6) / cpuAll);
  return `## Scale-out: PostgreSQL 15 + Redis 7, and the embedded mode side by side (bench/scale-out.ts)

### Embedded mode before and after the storage seam

${embeddedSection(r.embedded)}

### Scale-out mode: durable webhook ingest (\`npx conveyor ingress\` processes, no runner running)

| ingress processes | wrk connections | seconds | accepted | per second | p50 ms | p90 ms | p99 ms | CPU per delivery: Node | PostgreSQL | Node + PostgreSQL | Redis | wrk | every 202 stored |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${so.ingest.map((i) => `| ${i.ingress} | ${i.connections} | ${i.seconds} | ${i.accepted} | **${i.perSecond}** | ${i.p50ms} | ${i.p90ms} | **${i.p99ms}** | ${i.cpuMicrosPerDelivery.node} µs | ${i.cpuMicrosPerDelivery.pg} µs | **${i.cpuMicrosPerDelivery.nodePlusPg} µs** | ${i.cpuMicrosPerDelivery.redis} µs | ${i.cpuMicrosPerDelivery.loadGenerator} µs | ${i.allAcceptedDurable ? "yes" : "**no**"} (${i.storedEvents} events; outbox left ${i.outboxLeft}) |`).join("\n")}

wrk sends a distinct alert in every request (bench/post-distinct.lua) and runs on the same cores. CPU is user + system
time of the process trees read from /proc (Node: the ingress processes; PostgreSQL: the postmaster and every backend,
WAL writer, checkpointer and autovacuum; Redis: redis-server), divided by accepted deliveries: it does not depend on what
else the shared machine runs, unlike the rate. Node + PostgreSQL at ${cpu} µs per delivery means 4 free cores accept about
**${predicted} deliveries/s** (${predictedAll}/s counting Redis too), with the load generator elsewhere.

Targets: ≥ 5,000 deliveries/s on this 2-core machine with p99 < 50 ms: ${yes(best.perSecond >= 5000 && best.p99ms < 50)} (best here ${best.perSecond}/s, p99 ${best.p99ms} ms;
one ingress: ${one.perSecond}/s, p99 ${one.p99ms} ms); CPU per delivery predicting ≥ 10,000/s on 4 cores: ${yes(predicted >= 10_000)} (${predicted}/s).

### Scale-out mode: completed 3-step runs (\`npx conveyor worker\` processes draining the backlog)

| workers | seconds | runs completed | runs/s | CPU per run: Node | PostgreSQL | Node + PostgreSQL | Redis | backlog at start → left |
|---|---|---|---|---|---|---|---|---|
${so.runs.map((w) => `| ${w.workers} | ${w.seconds} | ${w.runs} | **${w.runsPerSecond}** | ${w.cpuMicrosPerRun.node} µs | ${w.cpuMicrosPerRun.pg} µs | **${w.cpuMicrosPerRun.nodePlusPg} µs** | ${w.cpuMicrosPerRun.redis} µs | ${w.backlogAtStart} → ${w.backlogLeft} |`).join("\n")}

Every run is \`core.webhook\` → 3 × \`core.filter\`; each step's outcome is its own synchronous PostgreSQL commit under the
run's lease (fencing). Checks over the whole database afterwards: ${so.checks.succeededRuns} runs succeeded with
${so.checks.stepsOfSucceededRuns} steps recorded (every step recorded: ${so.checks.everyStepRecorded ? "yes" : "**no**"}), ${so.checks.notSucceeded} failed or cancelled,
${so.checks.eventsWithTwoRuns} events with two runs.
${
  so.latency
    ? `
### Delivery → run finished (2 ingress + 3 workers, ${so.latency.rate} deliveries/s over HTTP for 8 s)

${so.latency.finished} runs finished of ${so.latency.accepted} deliveries accepted, sent at an even pace (bench/scale-out/paced.ts): p50
**${so.latency.p50ms} ms**, p99 **${so.latency.p99ms} ms** (ingest p99 ${so.latency.ingestP99ms} ms). Two seconds of deliveries at the same pace
go first and are not counted (the processes have just started); a rate above what the workers complete (see the table
above) only measures the queue growing.
`
    : ""
}
PostgreSQL settings (durability as shipped): ${Object.entries(so.pgSettings)
    .map(([k, v]) => `\`${k}=${v}\``)
    .join(", ")}. Why: docs/scale-out.md, *Tuning PostgreSQL*.
`;
}

/** One row per run of bench/scale-out.ts (for reporting repeated runs next to each other). */
export function scaleOutRunsTable(runs) {
  const f = (r) => {
    const e = r.embedded;
    const so = r.scaleOut;
    const ing = (n) => so.ingest.find((i) => i.ingress === n);
    const wk = (n) => so.runs.find((w) => w.workers === n);
    const i1 = ing(1),
      i2 = ing(2),
      w1 = wk(1),
      w3 = wk(3);
    return [
      r.label,
      r.load ?? "",
      e
        ? `${e.before.ingest.perSecond} → ${e.after.ingest.perSecond} (${pct(e.change.ingestPerSecond)}); CPU ${e.before.ingest.serverCpuMicrosPerDelivery} → ${e.after.ingest.serverCpuMicrosPerDelivery} µs (${pct(e.change.ingestCpuPerDelivery)})`
        : "skipped",
      e ? `${e.before.runs.runsPerSecond} → ${e.after.runs.runsPerSecond} (${pct(e.change.runsPerSecond)}); CPU ${pct(e.change.runnerScriptCpu)}` : "skipped",
      i1 ? `${i1.perSecond}/s, p99 ${i1.p99ms} ms, ${i1.cpuMicrosPerDelivery.nodePlusPg} µs` : "",
      i2 ? `${i2.perSecond}/s, p99 ${i2.p99ms} ms, ${i2.cpuMicrosPerDelivery.nodePlusPg} µs` : "",
      w1 ? `${w1.runsPerSecond}/s, ${w1.cpuMicrosPerRun.nodePlusPg} µs` : "",
      w3 ? `${w3.runsPerSecond}/s, ${w3.cpuMicrosPerRun.nodePlusPg} µs` : "",
      so.latency ? `${so.latency.p50ms} / ${so.latency.p99ms} ms at ${so.latency.rate}/s` : "",
    ];
  };
  return `| run | load average (before → after) | embedded ingest/s before → now; CPU per delivery | embedded runs/s before → now; runner CPU | scale-out ingest, 1 ingress (rate, p99, Node + PostgreSQL CPU per delivery) | 2 ingress | runs, 1 worker (rate, Node + PostgreSQL CPU per run) | 3 workers | delivery → run finished p50 / p99 |
|---|---|---|---|---|---|---|---|---|
${runs.map((r) => `| ${f(r).join(" | ")} |`).join("\n")}`;
}
