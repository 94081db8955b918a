import { monitorEventLoopDelay } from "node:perf_hooks";
import { ExpressionPool } from "@/integrations/core/sandbox/pool";
const ballast = Array.from({ length: Number(process.env.BALLAST ?? 0) }, (_, i) => ({ i }));
const b = JSON.stringify({ trigger: {}, steps: {} });
const P: Record<string, string> = { regex: "$match($pad('', 50000, 'a') & '!', /^(a+)+$/)", huge: "$count([1..10000000].{ 'n': $, 'pad': $pad('', 20, 'x') })", loop: "($f := function($n){ $n > 0 ? $f($n - 1) + $f($n - 1) : 1 }; $f(60))", none: "1" };
for (const kind of ["none", "regex", "huge", "loop"]) {
  const pool = new ExpressionPool({ workers: 2, timeoutMs: 1000, maxHeapMb: 64, idleMs: 5000 });
  const h = monitorEventLoopDelay({ resolution: 5 }); h.enable();
  const t0 = performance.now();
  if (kind === "none") await new Promise((r) => setTimeout(r, 3000));
  else await Promise.all(Array.from({ length: 6 }, () => pool.run(P[kind]!, b).catch((e) => e.message)));
  h.disable();
  console.log(kind, (performance.now() - t0).toFixed(0), "ms; eld p50/p99/max", (h.percentile(50) / 1e6).toFixed(1), (h.percentile(99) / 1e6).toFixed(1), (h.max / 1e6).toFixed(1), ballast.length);
  await pool.close();
}
process.exit(0);
