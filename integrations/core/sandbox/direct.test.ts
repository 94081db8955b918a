import jsonata from "jsonata";
import { describe, expect, it } from "vitest";
import { compileDirect, FALLBACK } from "./direct";
import { evaluateSource, BindingsText, lastEvaluation } from "./index";

/** A small seeded generator, so a failing case can be replayed from its seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  return { next, pick };
}

const KEYS = ["a", "b", "status", "n", "constructor"] as const;
const SCALARS = ["", "x", "firing", "10", "9", 0, -0, 1, 2.5, -3, 10, true, false, null] as const;

function value(r: ReturnType<typeof prng>, depth: number): unknown {
  const roll = r.next();
  if (depth <= 0 || roll < 0.45) return r.pick(SCALARS);
  if (roll < 0.6) return Array.from({ length: Math.floor(r.next() * 3) }, () => value(r, depth - 1));
  const o: Record<string, unknown> = {};
  for (const k of KEYS) if (r.next() < 0.5) o[k] = value(r, depth - 1);
  return o;
}

function path(r: ReturnType<typeof prng>): string {
  const root = r.next() < 0.7 ? "$trigger" : `$steps.${r.pick(["s1", "s2", "missing"])}`;
  let p = root;
  for (let i = Math.floor(r.next() * 4); i > 0; i--) p += `.${r.pick(KEYS)}`;
  return p;
}

const LITERALS = ["'x'", '"firing"', "''", "'10'", "0", "1", "2.5", "-3", "true", "false", "null"];
const BINARY = ["=", "!=", "<", "<=", ">", ">=", "and", "or"];

function expression(r: ReturnType<typeof prng>, depth: number): string {
  const roll = r.next();
  if (depth <= 0 || roll < 0.3) return r.next() < 0.6 ? path(r) : r.pick(LITERALS);
  const sub = () => expression(r, depth - 1);
  if (roll < 0.6) return `${sub()} ${r.pick(BINARY)} ${sub()}`;
  if (roll < 0.65) return `(${sub()} ? ${sub()}${r.next() < 0.7 ? ` : ${sub()}` : ""})`;
  if (roll < 0.7) return `-(${sub()})`;
  if (roll < 0.85) return `$${r.pick(["exists", "boolean", "not", "count"])}(${sub()})`;
  if (roll < 0.9) return `$count($keys(${sub()}))`;
  // Outside the subset: must always fall back.
  return r.pick([`${path(r)}[0]`, `${path(r)}[]`, `$string(${sub()})`, `${sub()} & ${sub()}`, `${sub()} + 1`, `${sub()} in ${sub()}`]);
}

/** What the route through JSONata returns: its value after the JSON round trip, or that it threw. */
async function reference(source: string, bindings: Record<string, unknown>): Promise<{ ok: true; value: unknown } | { ok: false }> {
  try {
    const v = await jsonata(source).evaluate(undefined, bindings);
    const json = v === undefined ? undefined : JSON.stringify(v);
    return { ok: true, value: json === undefined ? undefined : JSON.parse(json) };
  } catch {
    return { ok: false };
  }
}

describe("direct evaluation", () => {
  it("gives JSONata's result on generated expressions and data, or falls back", async () => {
    let direct = 0;
    let total = 0;
    for (let seed = 1; seed <= 4000; seed++) {
      const r = prng(seed);
      const source = expression(r, 3);
      const bindings = { trigger: value(r, 4), steps: { s1: value(r, 3), s2: value(r, 3) } };
      const compiled = compileDirect(jsonata(source).ast());
      const ref = await reference(source, bindings);
      total++;
      if (!compiled) continue;
      const got = compiled.run(bindings);
      if (got === FALLBACK) continue;
      direct++;
      const normal = got === null || typeof got !== "object" ? (got === 0 ? 0 : got) : JSON.parse(JSON.stringify(got));
      expect({ seed, source, ref }).toEqual({ seed, source, ref: { ok: true, value: normal } });
    }
    // The comparison means something only if the direct route answered a good share of the cases.
    expect(direct / total).toBeGreaterThan(0.3);
  });

  it("answers the common alert conditions without JSONata's evaluator, and hands the rest to it", async () => {
    const bindings = new BindingsText({
      trigger: { data: { status: "firing", labels: { alertname: "DiskFull", severity: "page" }, list: [1, 2] } },
      steps: { s1: { data: { passed: true } }, s2: { data: { passed: false } } },
    });
    expect(await evaluateSource("$trigger.data.status = 'firing'", bindings)).toBe(true);
    expect(lastEvaluation).toBe("direct");
    expect(await evaluateSource("$count($keys($trigger.data.labels)) > 0", bindings)).toBe(true);
    expect(lastEvaluation).toBe("direct");
    expect(await evaluateSource("$count($trigger.data.list) > 1", bindings)).toBe(true);
    expect(lastEvaluation).toBe("direct");
    expect(await evaluateSource("$steps.s1.data.passed and $steps.s2.data.passed", bindings)).toBe(false);
    expect(lastEvaluation).toBe("direct");
    expect(await evaluateSource("$trigger.data.labels.severity = 'page' ? 'P1' : 'P3'", bindings)).toBe("P1");
    expect(lastEvaluation).toBe("direct");
    // An array on the way: JSONata maps over it.
    expect(await evaluateSource("$trigger.data.list", bindings)).toEqual([1, 2]);
    expect(lastEvaluation).toBe("main");
    // Objects are copied through JSON by the JSONata route.
    expect(await evaluateSource("$trigger.data.labels", bindings)).toEqual({ alertname: "DiskFull", severity: "page" });
    expect(lastEvaluation).toBe("main");
    // An object's truth lists its keys: the JSONata route, which bounds the data first.
    expect(await evaluateSource("$trigger.data.labels and true", bindings)).toBe(true);
    expect(lastEvaluation).toBe("main");
    // A type error is JSONata's to report.
    await expect(evaluateSource("$trigger.data.status < 1", bindings)).rejects.toThrow(/must be of the same data type/);
  });

  it("keeps the output cap on long strings", async () => {
    const bindings = new BindingsText({ trigger: { data: { blob: "\u0001".repeat(60_000) } }, steps: {} });
    await expect(evaluateSource("$trigger.data.blob", bindings)).rejects.toThrow(/larger than/);
  });
});
