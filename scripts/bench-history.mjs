// Markdown sections of docs/benchmarks.md for the history benches (bench/history.ts, bench/prune.ts)
// and the editor bench (bench/editor.ts); used by scripts/bench.mjs.

const mb = (b) => `${(b / 2 ** 20).toFixed(b < 10 * 2 ** 20 ? 1 : 0)} MB`;
const n = (x) => x.toLocaleString("en-US");

/** `results`: { sqlite, postgres } outputs of bench/history.ts (either may be null). */
export function historySection(results) {
  const backends = Object.entries(results).filter(([, r]) => r);
  if (!backends.length) return "Skipped.";
  const calls = Object.keys(backends[0][1].results[0].timings);
  const scales = backends[0][1].results.map((r) => r.runs);
  const head = `| call | ${backends.flatMap(([b]) => scales.map((s) => `${b} ${s >= 1e6 ? `${s / 1e6}M` : `${s / 1e3}k`}`)).join(" | ")} |`;
  const sep = `|---|${backends.flatMap(() => scales.map(() => "---")).join("|")}|`;
  const rows = calls.map(
    (c) => `| ${c} | ${backends.flatMap(([, r]) => r.results.map((x) => `${x.timings[c].p50ms} / **${x.timings[c].p99ms}**`)).join(" | ")} |`,
  );
  const sizes = backends.map(
    ([b, r]) =>
      `| ${b} | ${r.results.map((x) => `${n(x.runs)} runs: ${mb(x.bytes.total)}${x.bytes.wal !== undefined ? ` (WAL ${mb(x.bytes.wal)})` : ""}, **${n(x.bytesPerRun)} B/run** (seeded in ${x.seedSeconds} s)`).join("; ")} |`,
  );
  const scans = backends.flatMap(([b, r]) =>
    r.results.flatMap((x) => Object.entries(x.fullScans).map(([c, lines]) => `- ${b}, ${n(x.runs)} runs, ${c}: \`${lines[0].trim()}\``)),
  );
  const plans = backends.map(([b, r]) => {
    const last = r.results[r.results.length - 1];
    const lines = Object.entries(last.plans).map(
      ([c, ps]) =>
        `- ${c}: ${ps
          .filter((p) => /\b(runs|run_steps|events|usage_counters)\b/.test(p.sql))
          .map((p) => `\`${(p.plan.find((l) => /SEARCH|SCAN|Index|Seq Scan/.test(l)) ?? p.plan[0] ?? "").trim()}\``)
          .join("; ")}`,
    );
    return `**${b}** at ${n(last.runs)} runs:\n\n${lines.join("\n")}`;
  });
  return `p50 / **p99** in ms over ${backends[0][1].results[0].timings[calls[0]].n} sequential calls each, through the REST door in process
(the route modules of app/api/v1 called with a Request: API key, rate limit, validation, response schema),
except the two "workspace run list" rows, which call the run page's service (tRPC) directly. Load average at the end:
${backends.map(([b, r]) => `${b} ${r.loadAverage.join(" / ")}`).join("; ")}. Layout: ${backends[0][1].workspaces} workspaces × ${backends[0][1].automations / backends[0][1].workspaces} automations, runs spread
evenly over 28 days and the automations, 5 % failed, 0.5 % cancelled; each run = its event (an Alertmanager
notification) + 3 steps with inputs, outputs, attempts and logs (db/testing/history.ts); hourly usage counters for 90 days.

${head}
${sep}
${rows.join("\n")}

Target: p99 < 50 ms for listing runs, opening a run and the usage page at 1M runs. Before/after, decisions and method:
docs/history-bench.md.

On disk (SQLite: main file + WAL after a checkpoint; PostgreSQL: \`runs\` + \`run_steps\` + \`events\` with their indexes and TOAST,
after ANALYZE). Bytes per run = growth between two sizes divided by the runs added:

| backend | sizes |
|---|---|
${sizes.join("\n")}

Full scans of a history table seen in the plans of these calls: ${scans.length ? `\n\n${scans.join("\n")}` : "none."}

Query plans of each call's statements on the history tables (SQLite EXPLAIN QUERY PLAN; PostgreSQL EXPLAIN ANALYZE, first index line):

${plans.join("\n\n")}`;
}

/** `results`: { sqlite, postgres } outputs of bench/prune.ts. */
export function pruneSection(results) {
  const backends = Object.entries(results).filter(([, r]) => r);
  if (!backends.length) return "Skipped.";
  const table = (
    b,
    name,
    s,
  ) => `**${b}, ${name} limit** (${name === "count" ? `${n(s.limits.retentionCount)} runs per automation` : `${s.limits.retentionDays} day`}):

| wave | runs written | runs kept | steps | events | prune passes | slowest pass | longest event-loop wait | on disk |
|---|---|---|---|---|---|---|---|---|
${s.waves.map((w) => `| ${w.wave} | ${n(w.written)} | ${n(w.runs)} | ${n(w.steps)} | ${n(w.events)} | ${w.passes} | ${w.slowestPassMs} ms | ${w.maxEventLoopDelayMs ?? "?"} ms | ${mb(w.bytes.total)}${w.bytes.wal !== undefined ? ` (WAL ${mb(w.bytes.wal)}, free pages ${mb(w.bytes.freePages)})` : ""} |`).join("\n")}`;
  return backends
    .map(
      ([b, r]) =>
        `${table(b, "count", r.count)}\n\n${table(b, "age", r.age)}\n\nFull scans in a prune pass's plans: ${[...r.count.fullScans, ...r.age.fullScans].length ? [...r.count.fullScans, ...r.age.fullScans].map((l) => `\`${l.trim()}\``).join(", ") : "none"}.`,
    )
    .join("\n\n");
}

export function editorSection(editor) {
  if (!editor) return "Skipped: no production build. Run `npm run build` first, then `npm run bench`.";
  const fr = (f) => `${f.fps} fps (p95 frame ${f.p95FrameMs} ms, ${f.longFrames} > 50 ms)`;
  const rows = editor.builds.flatMap((b) =>
    b.scenarios.map(
      (s) =>
        `| ${b.build} | ${s.nodes} | ${b.loadAverage.join(" → ")} | ${s.openColdMs} ms | ${s.openWarmMs} ms (${s.openWarmRunsMs.join(" / ")}) | ${s.openMainThreadMs ? `${s.openMainThreadMs.coldMs} / ${s.openMainThreadMs.warmMs} ms` : "–"} | ${fr(s.panFitted)} | ${fr(s.pan)} | ${fr(s.drag)} |`,
    ),
  );
  return `| build | nodes | load avg | open cold | open warm (mean of 3) | renderer main thread per open, cold / warm | pan, whole graph in view | pan, zoomed in | drag a node |
|---|---|---|---|---|---|---|---|---|
${rows.join("\n")}

Targets: 200 nodes open < 1 s cold and < 600 ms warm; 1,000 nodes open < 2 s and pan at ≥ 50 fps. The last build listed is
this one; an earlier one (when given with BENCH_EDITOR_BUILDS) is the previous build measured in the same run. The main-thread
column is the renderer's busy time (Chrome's TaskDuration) during an open, which a loaded machine distorts far less than the wall
clock (a lower bound when a navigation starts a new renderer). Method: docs/editor-bench.md.`;
}
