/**
 * Cost of evaluating `{{ }}` expressions: the main-thread fast path for provably cheap expressions
 * vs a round trip to the worker-process pool, per step config (resolveExpressions) and raw.
 * Prints one JSON line (scripts/bench.mjs convention).
 */
import fs from "node:fs";
import path from "node:path";
import { resolveExpressions } from "@/integrations/core/expressions";
import { analyseExpression, BindingsText, closeExpressionSandbox, expressionPool } from "@/integrations/core/sandbox";

const body = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "fixtures", "alertmanager-webhook.json"), "utf8"));
const chain = {
  trigger: { type: "core.webhook", timestamp: new Date().toISOString(), data: { body, headers: {}, query: {} } },
  steps: { s1: { type: "core.filter", timestamp: new Date().toISOString(), data: { passed: true } } },
};
const N = Number(process.env.BENCH_N ?? 20_000);
const CHEAP = "{{ $count($trigger.data.body.alerts) > 0 and $steps.s1.data.passed }}";
// Cheap too, but its predicate is beyond the direct subset (sandbox/direct.ts): JSONata's evaluator on the main thread.
const CHEAP_JSONATA = "{{ $trigger.data.body.alerts[0].status = 'firing' and $steps.s1.data.passed }}";
const POOLED = "{{ $join($trigger.data.body.alerts.labels.alertname, ',') }}";

async function perOp(label: string, n: number, fn: () => Promise<unknown>) {
  for (let i = 0; i < Math.min(500, n); i++) await fn(); // warm-up
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn();
  const us = ((performance.now() - t0) * 1000) / n;
  return { label, n, microsPerOp: Math.round(us * 10) / 10 };
}

async function concurrent(n: number, width: number, fn: () => Promise<unknown>) {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next++ < n) await fn();
    }),
  );
  return Math.round(n / ((performance.now() - t0) / 1000));
}

const classify = (t: string) => analyseExpression(t.slice(2, -2).trim());
if (!classify(CHEAP).direct || !classify(CHEAP_JSONATA).cheap || classify(CHEAP_JSONATA).direct || classify(POOLED).cheap)
  throw new Error("bench expressions are not classified as intended");
const text = new BindingsText(chain);
const results = [
  await perOp("cheap expression, main thread, direct (resolveExpressions)", N, () => resolveExpressions({ condition: CHEAP }, chain, { plain: true })),
  await perOp("cheap expression, main thread, JSONata's evaluator (resolveExpressions)", N, () =>
    resolveExpressions({ condition: CHEAP_JSONATA }, chain, { plain: true }),
  ),
  await perOp("pooled expression, worker round trip (resolveExpressions)", Math.round(N / 4), () =>
    resolveExpressions({ condition: POOLED }, chain, { plain: true }),
  ),
  await perOp("pooled expression, raw pool round trip (bindings already serialised)", Math.round(N / 4), () =>
    expressionPool().run(POOLED.slice(2, -2).trim(), text.for(null)),
  ),
];
const pooledPerSecond64 = await concurrent(Math.round(N / 4), 64, () => resolveExpressions({ condition: POOLED }, chain, { plain: true }));
const cheapPerSecond64 = await concurrent(N, 64, () => resolveExpressions({ condition: CHEAP }, chain, { plain: true }));
console.log(
  JSON.stringify({
    bench: "expressions",
    bindingsBytes: text.for(null).length,
    results,
    perSecondAt64: { cheap: cheapPerSecond64, pooled: pooledPerSecond64 },
    workers: expressionPool().limits.workers,
  }),
);
await closeExpressionSandbox();
process.exit(0);
