import { describe, expect, it } from "vitest";
import {
  evaluateTemplate,
  ExpressionError,
  NOT_DIRECT,
  previewExpression,
  renameNodeInGraph,
  resolveExpressions,
  resolveExpressionsDirect,
  checkTemplate,
} from "./expressions";
import { configureExpressionSandbox, lastEvaluation } from "./sandbox";

const ctx = {
  trigger: { type: "metrics.alert", timestamp: "2026-01-01T00:00:00.000Z", data: { labels: { alertname: "DiskFull" }, count: 3, list: [1, 2] } },
  steps: { silence: { type: "metrics.silence", timestamp: "2026-01-01T00:00:01.000Z", data: { silenceID: "abc" } } },
};

describe("expressions", () => {
  it("keeps the type of a lone expression and stringifies mixed text", async () => {
    expect(await evaluateTemplate("{{ $trigger.data.count }}", ctx)).toBe(3);
    expect(await evaluateTemplate("{{ $trigger.data.list }}", ctx)).toEqual([1, 2]);
    expect(await evaluateTemplate("n={{ $trigger.data.count }} id={{ $steps.silence.data.silenceID }}", ctx)).toBe("n=3 id=abc");
    expect(await evaluateTemplate("{{ {'a': {'b': 1}} }}", ctx)).toEqual({ a: { b: 1 } });
  });

  it("resolves a config without a promise exactly as resolveExpressions does, or says it cannot", async () => {
    const configs: unknown[] = [
      { condition: "{{ $trigger.data.count > 2 }}" },
      { condition: "{{ $trigger.data.labels.alertname = 'DiskFull' and $exists($steps.silence.data.silenceID) }}" },
      { matchers: [{ name: "alertname", value: "{{ $trigger.data.labels.alertname }}" }, "{{ $trigger.data.nope }}", 3], n: 1, skip: "{{ $trigger.data.nope }}" },
      { text: "n={{ $trigger.data.count }} id={{ $steps.silence.data.silenceID }} none={{ $trigger.data.nope }} b={{ $trigger.data.count > 1 }}" },
      { zero: "{{ -0 }}", s: "{{ 'x' }}", nothing: null, list: [], nested: { deep: ["{{ $count($trigger.data.list) }}"] } },
      // Not the direct route: an object or array result, a function outside its subset, a syntax error.
      { list: "{{ $trigger.data.list }}" },
      { labels: "{{ $trigger.data.labels }}" },
      { s: "{{ $string($trigger.data.count) }}", ok: "{{ 1 = 1 }}" },
      { x: { y: "{{ $nope( }}" } },
      "plain text",
      ["{{ $trigger.data.count }}", { a: "{{ $steps.silence.type }}" }],
    ];
    const direct = configs.map((c) => resolveExpressionsDirect(c, ctx));
    for (const [i, c] of configs.entries()) {
      if (direct[i] === NOT_DIRECT) continue;
      expect(direct[i], JSON.stringify(c)).toStrictEqual(await resolveExpressions(c, ctx, { plain: true }));
      expect(Object.is(direct[i], await resolveExpressions(c, ctx, { plain: true })) || typeof direct[i] === "object").toBe(true);
    }
    // The direct ones resolve without a promise; the others are left to resolveExpressions (which names the failing field).
    expect(direct.map((d) => d !== NOT_DIRECT)).toEqual([true, true, true, true, true, false, false, false, false, true, true]);
    expect((direct[4] as { zero: number }).zero).toBe(0);
    expect(Object.is((direct[4] as { zero: number }).zero, -0)).toBe(false);
  });

  it("resolves nested config and names the field on failure", async () => {
    const out = await resolveExpressions({ matchers: [{ name: "alertname", value: "{{ $trigger.data.labels.alertname }}" }], n: 1 }, ctx);
    expect(out).toEqual({ matchers: [{ name: "alertname", value: "DiskFull" }], n: 1 });
    await expect(resolveExpressions({ x: { y: "{{ $nope( }}" } }, ctx)).rejects.toThrow(/^x\.y: syntax error/);
    expect(checkTemplate("{{ 1 + }}")).toMatch(/syntax error/);
    expect(checkTemplate("{{ $trigger.data = 'x' ) }}")).toBe('syntax error: ")" (at position 21)');
    expect(checkTemplate("a {{ 1 + 1 }}")).toBeNull();
  });

  it("cannot reach constructors, prototypes or the process", async () => {
    expect(await evaluateTemplate("{{ $trigger.constructor }}", ctx)).toBeUndefined();
    expect(await evaluateTemplate("{{ $trigger.data.labels.__proto__ }}", ctx)).toBeUndefined();
    expect(await evaluateTemplate("{{ $process }}", ctx)).toBeUndefined();
    expect(await evaluateTemplate("{{ $globalThis }}", ctx)).toBeUndefined();
    for (const attempt of [
      "$trigger.constructor.constructor('return process')()",
      "$string.constructor('return process')()",
      "$lookup($trigger, 'constructor')",
      "$eval('$process')",
    ]) {
      const got = await evaluateTemplate(`{{ ${attempt} }}`, ctx).catch((e: Error) => `error: ${e.message}`);
      expect(got === undefined || (typeof got === "string" && got.startsWith("error"))).toBe(true);
    }
    await evaluateTemplate("{{ $merge([{}, {'__proto__': {'polluted': true}}]) }}", ctx).catch(() => undefined);
    await evaluateTemplate("{{ {'__proto__': {'polluted': true}} }}", ctx).catch(() => undefined);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  });

  it("stops infinite recursion, runaway loops and huge outputs", async () => {
    await expect(evaluateTemplate("{{ ($f := function($x){ $f($x + 1) }; $f(1)) }}", ctx)).rejects.toThrow(/too deeply|longer than/);
    const started = Date.now();
    await expect(evaluateTemplate("{{ ($f := function($x){ $x > 0 ? $f($x - 1) + $f($x - 1) : 1 }; $f(40)) }}", ctx)).rejects.toThrow(/longer than|too deeply/);
    expect(Date.now() - started).toBeLessThan(15_000); // 2^40 calls would take hours: it was stopped (1 s limit + a worker start on a loaded machine)
    configureExpressionSandbox({ timeoutMs: 10_000 }); // the size cap must be what stops it, even on a loaded machine
    await expect(evaluateTemplate("{{ $pad('', 2000000, 'x') }}", ctx)).rejects.toThrow(/larger than/);
    configureExpressionSandbox({ timeoutMs: 1000 });
  });

  it("names the field of a poison expression and marks it stopped; ordinary failures are not stopped", async () => {
    configureExpressionSandbox({ timeoutMs: 400 });
    const config = {
      url: "{{ $trigger.data.labels.alertname }}",
      body: { text: "{{ $match($pad('', 50000, 'a') & '!', /^(a+)+$/) }}" },
    };
    const e = (await resolveExpressions(config, ctx).catch((x) => x)) as ExpressionError;
    expect(e).toBeInstanceOf(ExpressionError);
    expect(e.field).toBe("body.text");
    expect(e.stopped).toBe(true);
    expect(e.reason).toBe("it ran longer than 400 ms");
    configureExpressionSandbox({ timeoutMs: 10_000 }); // the heap limit must win even on a loaded machine
    const huge = await resolveExpressions({ headers: { x: "{{ $count([1..10000000].($ * 2)) }}" } }, ctx).catch((x) => x);
    expect(huge).toMatchObject({ field: "headers.x", stopped: true, reason: "it used more than 64 MB of memory" });
    configureExpressionSandbox({ timeoutMs: 1000 });
    // An ordinary failure is not "stopped".
    expect(await resolveExpressions({ n: "{{ $number('x') }}" }, ctx).catch((x) => x)).toMatchObject({ field: "n", stopped: false });
  });

  it("evaluates cheap expressions on the calling thread and the rest in the pool, with the same results", async () => {
    expect(await evaluateTemplate("{{ $trigger.data.list[0] = 1 and $steps.silence.data.silenceID = 'abc' }}", ctx)).toBe(true);
    expect(lastEvaluation).toBe("main");
    expect(await evaluateTemplate("{{ $count($trigger.data.list) > 1 and $steps.silence.data.silenceID = 'abc' }}", ctx)).toBe(true);
    expect(lastEvaluation).toBe("direct");
    expect(await evaluateTemplate("{{ $join($map($trigger.data.list, function($v){ $string($v * 2) }), ',') }}", ctx)).toBe("2,4");
    expect(lastEvaluation).toBe("pool");
    expect(await evaluateTemplate("{{ $steps.silence.data.silenceID & '/' & $lookup($steps, 'silence').data.silenceID }}", ctx)).toBe("abc/abc");
    // A cheap-looking expression over a large payload goes to the pool too.
    const large = { ...ctx, trigger: { ...ctx.trigger, data: { ...ctx.trigger.data, list: Array.from({ length: 5000 }, (_, i) => i) } } };
    expect(await evaluateTemplate("{{ $sum($trigger.data.list) }}", large)).toBe(12497500);
    expect(lastEvaluation).toBe("pool");
    // Counting an array reads its length only: no JSONata, whatever its size.
    expect(await evaluateTemplate("{{ $count($trigger.data.list) }}", large)).toBe(5000);
    expect(lastEvaluation).toBe("direct");
    expect(await evaluateTemplate("{{ $trigger.data.labels.alertname }}", large)).toBe("DiskFull");
    expect(lastEvaluation).toBe("direct"); // a plain path: no JSONata evaluator at all (direct.ts)
  });

  it("previews without throwing and renames references", async () => {
    expect(await previewExpression("{{ $steps.silence.data.silenceID }}", ctx)).toEqual({ ok: true, value: "abc" });
    expect(await previewExpression("{{ ) }}", ctx)).toMatchObject({ ok: false });
    const g = renameNodeInGraph(
      {
        nodes: [
          { name: "silence", config: {} },
          { name: "b", config: { v: "{{ $steps.silence.data.x }} {{ $steps['silence'].y }} {{ $steps.silenceX }}" } },
        ],
      },
      "silence",
      "mute",
    );
    expect(g.nodes[0]!.name).toBe("mute");
    expect(g.nodes[1]!.config.v).toBe("{{ $steps.mute.data.x }} {{ $steps['mute'].y }} {{ $steps.silenceX }}");
  });
});
