/**
 * Cost as work grows: a run history of 10k, 100k and 1M runs (BENCH_SCALES) on one backend
 * (BENCH_BACKEND=sqlite|postgres), seeded in bulk (db/testing/history.ts), then over the REST door
 * (route modules called in process): list runs (first page, a deep cursor page, with and without a
 * status filter), the workspace run list (the run page's tRPC call), open a run with its steps, and
 * usage over 7/30/90 days; bytes per run on disk; the query plans of each call (a full scan of a
 * history table is reported). Prints one JSON line.
 */
import os from "node:os";
import { historyRows, seedHistory, usageRows, type HistoryPlan } from "@/db/testing/history";
import { encodeCursor } from "@/server/services/tasks/cursor";
import { runsCursorScope } from "@/server/services/runs/get-runs";
import { listRuns } from "@/server/services/runs";
import { checkpoint, diskBytes, openBench, plansOf, restGet, scans, seedLayout, timeCalls, type BackendName } from "./history-kit";

const BACKEND = (process.env.BENCH_BACKEND ?? "sqlite") as BackendName;
const SCALES = (process.env.BENCH_SCALES ?? "10000,100000,1000000").split(",").map(Number);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const DAY = 86_400_000;

const end = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
const b = await openBench(BACKEND, () => end);
const layout = await seedLayout(b);
const plan: HistoryPlan = { automations: layout.automations, total: Math.max(...SCALES), end, spanMs: 28 * DAY };
await b.deps.store.usage.add(usageRows(plan, 90));
const ws = layout.workspaces[0]!;
const app = layout.automations[0]!.id;
const appRoute = "factories/[factoryId]/apps/[appId]/runs";

let rng = 42;
const rand = (n: number) => {
  rng = (rng * 1103515245 + 12345) & 0x7fffffff;
  return rng % n;
};

const results: unknown[] = [];
let seeded = 0;
let prevBytes = (await diskBytes(b)).total!;
let prevRuns = 0;
for (const scale of SCALES) {
  const t0 = Date.now();
  await seedHistory(b.storage, plan, seeded, scale);
  const seedMs = Date.now() - t0;
  seeded = scale;
  // Sizes after the WAL is folded into the file (bulk seeding outruns the background checkpointer).
  if (BACKEND === "postgres") await b.sql("analyze");
  else await checkpoint(b);
  const bytes = await diskBytes(b);

  // Runs of automation 0 (run n belongs to automation n % 20): pick open/deep targets among them.
  const ofApp = (k: number) => k * layout.automations.length; // run numbers of automation 0
  const appRuns = Math.floor(scale / layout.automations.length);
  const rowOf = (n: number) => historyRows(plan, n).run;
  // Cursors are bound to their list (server/services/tasks/cursor.ts): the automation's runs, or the workspace's.
  const cursorAt = (n: number, list: "automation" | "workspace" = "automation") => {
    const r = rowOf(n);
    return encodeCursor(b.deps.box, runsCursorScope(ws, list === "automation" ? app : undefined), { c: String(r.created_at), i: String(r.id) });
  };
  // A deep cursor: the position of a run in the oldest tenth of the automation's history.
  const sortedApp = Array.from({ length: appRuns }, (_, k) => ofApp(k))
    .map((n) => ({ n, c: String(rowOf(n).created_at) }))
    .sort((x, y) => (x.c < y.c ? -1 : 1));
  const deepCursor = (list: "automation" | "workspace" = "automation") => cursorAt(sortedApp[rand(Math.max(1, Math.floor(appRuns / 10)))]!.n, list);
  const failedOfApp = sortedApp.filter((x) => rowOf(x.n).status === "failed");
  const deepFailedCursor = () => {
    const x = failedOfApp[rand(Math.max(1, Math.floor(failedOfApp.length / 10)))]!;
    return cursorAt(x.n);
  };

  const calls: Record<string, (i: number) => Promise<{ status: number; body: unknown }>> = {
    "list runs, first page (50)": () => restGet(layout.key, appRoute, { factoryId: ws, appId: app }, { limit: "50" }),
    "list runs, deep cursor page": () => restGet(layout.key, appRoute, { factoryId: ws, appId: app }, { limit: "50", cursor: deepCursor() }),
    "list runs, status=failed, first page": () => restGet(layout.key, appRoute, { factoryId: ws, appId: app }, { limit: "50", status: "failed" }),
    "list runs, status=failed, deep cursor page": () =>
      restGet(layout.key, appRoute, { factoryId: ws, appId: app }, { limit: "50", status: "failed", cursor: deepFailedCursor() }),
    "list runs, status=cancelled (0.5 %), first page": () => restGet(layout.key, appRoute, { factoryId: ws, appId: app }, { limit: "50", status: "cancelled" }),
    "list runs, status=running (none), first page": () => restGet(layout.key, appRoute, { factoryId: ws, appId: app }, { limit: "50", status: "running" }),
    "workspace run list (tRPC), first page": async () => ({ status: 200, body: await listRuns(b.deps, layout.owner, ws, { limit: 50 }) }),
    "workspace run list (tRPC), status=failed": async () => ({ status: 200, body: await listRuns(b.deps, layout.owner, ws, { limit: 50, status: "failed" }) }),
    "workspace run list (tRPC), status=running (none)": async () => ({
      status: 200,
      body: await listRuns(b.deps, layout.owner, ws, { limit: 50, status: "running" }),
    }),
    "workspace run list (tRPC), deep cursor page": async () => ({
      status: 200,
      body: await listRuns(b.deps, layout.owner, ws, { limit: 50, cursor: deepCursor("workspace") }),
    }),
    "open a run with its steps": () => restGet(layout.key, `${appRoute}/[runId]`, { factoryId: ws, appId: app, runId: String(rowOf(ofApp(rand(appRuns))).id) }),
    "usage, 7 days": () =>
      restGet(layout.key, "factories/[factoryId]/usage", { factoryId: ws }, { from: new Date(end.getTime() - 7 * DAY).toISOString(), to: end.toISOString() }),
    "usage, 30 days": () =>
      restGet(layout.key, "factories/[factoryId]/usage", { factoryId: ws }, { from: new Date(end.getTime() - 30 * DAY).toISOString(), to: end.toISOString() }),
    "usage, 90 days": () =>
      restGet(layout.key, "factories/[factoryId]/usage", { factoryId: ws }, { from: new Date(end.getTime() - 90 * DAY).toISOString(), to: end.toISOString() }),
  };
  const timings: Record<string, unknown> = {};
  const fullScans: Record<string, string[]> = {};
  const plans: Record<string, Array<{ sql: string; plan: string[] }>> = {};
  for (const [name, call] of Object.entries(calls)) {
    timings[name] = await timeCalls(SAMPLES, call);
    const p = await plansOf(b, () => call(0));
    plans[name] = p;
    const s = scans(p);
    if (s.length) fullScans[name] = s;
  }
  const checks = {
    firstPageSize: ((await calls["list runs, first page (50)"]!(0)).body as { data: unknown[] }).data.length,
    openedSteps: ((await calls["open a run with its steps"]!(0)).body as { steps: unknown[] }).steps.length,
    usage90Runs: ((await calls["usage, 90 days"]!(0)).body as { totals: { runs: Record<string, number> } }).totals.runs,
  };
  results.push({
    runs: scale,
    seedSeconds: +(seedMs / 1000).toFixed(1),
    bytes,
    bytesPerRun: Math.round((bytes.total! - prevBytes) / (scale - prevRuns)),
    timings,
    fullScans,
    plans,
    checks,
  });
  prevBytes = bytes.total!;
  prevRuns = scale;
  process.stderr.write(`history ${BACKEND} ${scale}: seeded in ${seedMs} ms, ${JSON.stringify(timings)}\n`);
}

console.log(
  JSON.stringify({
    backend: BACKEND,
    loadAverage: os.loadavg().map((l) => +l.toFixed(2)),
    automations: layout.automations.length,
    workspaces: layout.workspaces.length,
    results,
  }),
);
await b.close();
process.exit(0);
