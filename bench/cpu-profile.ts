/**
 * Summary of a V8 CPU profile (`node --cpu-prof`): busy time by category and the functions with the
 * most self time, as a text "flame graph summary" for docs/benchmarks.md. Time spent inside native
 * calls (better-sqlite3, JSON.parse/stringify, socket writes) is counted in the JavaScript function
 * that made the call, which is what names the category.
 */
import fs from "node:fs";
import path from "node:path";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface ProfileSummary {
  /** Busy milliseconds (samples not idle) over the whole process life. */
  busyMs: number;
  categories: Array<{ category: string; ms: number; pct: number }>;
  top: Array<{ fn: string; where: string; pct: number }>;
  deliveries?: number;
  cpuMicrosPerDelivery?: number;
}

const ROOT = path.resolve(import.meta.dirname, "..");

function where(url: string): string {
  if (!url) return "(native)";
  const u = url.replace(/^file:\/\//, "");
  const nm = u.indexOf("node_modules/");
  if (nm >= 0)
    return u
      .slice(nm + "node_modules/".length)
      .split("/")
      .slice(0, u.includes("node_modules/@") ? 2 : 1)
      .join("/");
  return u.startsWith(ROOT) ? path.relative(ROOT, u) : u;
}

/** The category of a sample, from the innermost frame that says something (by file, then function). */
function category(fn: string, file: string): string | undefined {
  if (fn === "(garbage collector)") return "garbage collection";
  if (fn === "(program)") return "V8 and native code outside JavaScript";
  if (file.startsWith("node:internal/modules") || file === "tsx" || file.startsWith("node:internal/main") || fn === "compileSourceTextModule")
    return "start-up (loading modules)";
  if (file === "db/sqlite/engine.ts") {
    if (fn === "intakeHead" || fn === "readIntakeHead" || fn === "dataVersion") return "intake lookup (cached; PRAGMA data_version)";
    return "SQLite: insert event, run and first job (bind, B-tree inserts, envelope JSON)";
  }
  if (file === "db/sqlite/group-commit.ts") return "SQLite: BEGIN/COMMIT of the grouped transaction (WAL write)";
  if (file === "db/sortable-id.ts" || file === "server/ids.ts") return "ids";
  if (fn === "parseJson" || fn === "jsonDepth") return "JSON.parse of the body (and its depth check)";
  if (file.startsWith("integrations/")) return "trigger: verify and match (Alertmanager alerts → events)";
  if (file === "zod") return "trigger: verify and match (Alertmanager alerts → events)";
  if (file === "prom-client" || file === "server/usage-counters.ts" || file.startsWith("server/observability")) return "counters (metrics, usage)";
  if (file.startsWith("server/services/webhooks") || file.startsWith("server/webhooks") || file.startsWith("bench/"))
    return "ingress: listener and receiveWebhook";
  if (
    file.startsWith("node:_http") ||
    file.startsWith("node:net") ||
    file.startsWith("node:internal/stream") ||
    file.startsWith("node:internal/streams") ||
    file === "node:events" ||
    fn === "writeUtf8String" ||
    fn === "writev" ||
    file.startsWith("node:internal/http")
  )
    return "node:http (parse request, write response, sockets)";
  if (file.startsWith("node:internal/process/task_queues") || fn === "runMicrotasks" || file === "node:internal/timers") return "promises, timers, ticks";
  return undefined;
}

export function summarizeCpuProfile(file: string): ProfileSummary {
  const p = JSON.parse(fs.readFileSync(file, "utf8")) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));

  const cats = new Map<string, number>();
  const fns = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    if (n.callFrame.functionName === "(idle)" || n.callFrame.functionName === "(root)") continue;
    busy += us;
    const key = `${n.callFrame.functionName || "(anonymous)"}\u0000${where(n.callFrame.url)}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
    // Walk up until a frame names a category (a node:internal helper inside node:http stays node:http).
    let cat: string | undefined;
    for (let x: number | undefined = id; x !== undefined && !cat; x = parent.get(x)) {
      const f = byId.get(x)!.callFrame;
      cat = category(f.functionName, where(f.url));
    }
    cats.set(cat ?? "other", (cats.get(cat ?? "other") ?? 0) + us);
  }
  const pct = (us: number) => Number(((100 * us) / busy).toFixed(1));
  return {
    busyMs: Math.round(busy / 1000),
    categories: [...cats].sort((a, b) => b[1] - a[1]).map(([category, us]) => ({ category, ms: Math.round(us / 1000), pct: pct(us) })),
    top: [...fns]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([k, us]) => {
        const [fn, w] = k.split("\u0000") as [string, string];
        return { fn, where: w, pct: pct(us) };
      }),
  };
}

if (process.argv[1] && import.meta.filename === path.resolve(process.argv[1])) {
  console.log(JSON.stringify(summarizeCpuProfile(process.argv[2]!), null, 2));
}
