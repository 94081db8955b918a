/**
 * Where a `{{ }}` expression runs. Provably cheap expressions (paths, literals, comparisons, a few
 * linear functions: see cheap.ts) run on the calling thread; everything else runs in the worker
 * pool (pool.ts) under a hard wall time and heap limit, so a poison expression (catastrophic regex
 * backtracking, a huge value, an endless loop) stops its own worker and never the HTTP doors.
 */
import { analyse, reachWithin, type Analysis } from "./cheap";
import { compileDirect, FALLBACK, type Direct } from "./direct";
import { CORE_LIMITS, compileExpression, evaluateToJson } from "./evaluate-core.mjs";
import { ExpressionFailed, ExpressionPool, ExpressionStopped, type PoolLimits, type StopReason } from "./pool";

export { ExpressionFailed, ExpressionStopped, type StopReason };

export interface SandboxLimits extends PoolLimits {
  /** Called each time a limit stops an evaluation (metrics). */
  onStop?: (reason: StopReason) => void;
}

export const DEFAULT_SANDBOX_LIMITS: PoolLimits = { workers: 2, timeoutMs: 1000, maxHeapMb: 64, idleMs: 30_000 };

let limits: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS };
let pool: ExpressionPool | undefined;

/**
 * Sets the limits (the runner calls this with the values from server/env.ts). When a pool limit
 * changes, later evaluations go to a new pool; the old one finishes what it runs and its idle
 * workers exit on their own.
 */
export function configureExpressionSandbox(next: Partial<SandboxLimits>): void {
  const merged = { ...limits, ...Object.fromEntries(Object.entries(next).filter(([, v]) => v !== undefined)) } as SandboxLimits;
  const changed = (["workers", "timeoutMs", "maxHeapMb", "idleMs"] as const).some((k) => merged[k] !== limits[k]);
  limits = merged;
  if (changed) pool = undefined;
}

export function expressionSandboxLimits(): Readonly<SandboxLimits> {
  return limits;
}

export function expressionPool(): ExpressionPool {
  return (pool ??= new ExpressionPool(limits));
}

/** Kills the pool's worker processes (tests, shutdown). */
export async function closeExpressionSandbox(): Promise<void> {
  const old = pool;
  pool = undefined;
  await old?.close();
}

/** Most JSON values a fast-path expression may reach (bounds its main-thread time with MAX_CHEAP_NODES). */
export const MAX_FAST_PATH_VALUES = 1000;

/** An analysed expression; `direct` when it can also run without JSONata's evaluator (direct.ts). */
export type CompiledExpression = Analysis & { direct: Direct | null };

const analyses = new Map<string, CompiledExpression>();

/** Compiles (syntax errors throw "syntax error: …") and analyses an expression, cached. */
export function analyseExpression(source: string): CompiledExpression {
  let a = analyses.get(source);
  if (!a) {
    const ast = compileExpression(source, limits.timeoutMs).ast();
    const analysis = analyse(ast, source);
    a = { ...analysis, direct: analysis.cheap ? compileDirect(ast) : null };
    if (analyses.size > 5000) analyses.clear();
    analyses.set(source, a);
  }
  return a;
}

export interface Bindings {
  trigger: unknown;
  steps: Record<string, unknown>;
}

/**
 * One evaluation context (one step's config): remembers the JSON text of the bindings sent to the
 * pool so several expressions of a step serialise them once. `steps` subsets are keyed by name list.
 */
export class BindingsText {
  private readonly texts = new Map<string, string>();
  constructor(readonly bindings: Bindings) {}

  for(steps: Set<string> | null): string {
    const names = steps ? [...steps].sort() : null;
    const key = names ? names.join("\u0000") : "\u0001all";
    let text = this.texts.get(key);
    if (text === undefined) {
      const all = this.bindings.steps ?? {};
      const subset = names ? Object.fromEntries(names.filter((n) => Object.hasOwn(all, n)).map((n) => [n, all[n]])) : all;
      text = JSON.stringify({ trigger: this.bindings.trigger ?? null, steps: subset });
      this.texts.set(key, text);
    }
    return text;
  }
}

/** Where the last evaluation ran (tests and the micro-bench look at it): "direct" is the main thread without JSONata. */
export let lastEvaluation: "direct" | "main" | "pool" = "main";

/** Strings up to this length are under the output cap whatever they hold (JSON escapes a character in at most 6). */
const DIRECT_MAX_STRING = Math.floor(CORE_LIMITS.maxOutputBytes / 6);

/** What `evaluateDirect` answers for an expression the direct route does not take (then use `evaluateSource`). */
export const NOT_DIRECT: unique symbol = Symbol("not direct");

function directValue(analysis: CompiledExpression, bindings: Record<string, unknown>, smallEnough: () => boolean): unknown {
  const direct = analysis.direct;
  if (direct && (!direct.readsWhole || smallEnough())) {
    // Scalars only: an object result takes the JSONata route, which copies it and applies the output cap.
    const v = direct.run(bindings);
    if (v !== FALLBACK && (v === null || typeof v !== "object") && (typeof v !== "string" || v.length <= DIRECT_MAX_STRING)) {
      lastEvaluation = "direct";
      return v === 0 ? 0 : v; // -0 reads as 0, as after the JSON round trip below
    }
  }
  return NOT_DIRECT;
}

/**
 * `evaluateSource`'s first route on its own, synchronously: the expression's value when the direct
 * route (direct.ts) answers it, else NOT_DIRECT. Throws what that route throws (a syntax error).
 */
export function evaluateDirect(source: string, ctx: BindingsText): unknown {
  const analysis = analyseExpression(source);
  const bindings = ctx.bindings as unknown as Record<string, unknown>;
  return directValue(analysis, bindings, () => reachWithin(analysis.accesses, bindings, MAX_FAST_PATH_VALUES));
}

/**
 * Evaluates one JSONata expression (the inside of a `{{ }}`) and returns a plain JSON value.
 * Throws ExpressionStopped (a limit stopped it), ExpressionFailed (JSONata's error; `stopped` when its
 * own time guard fired) or Error (syntax).
 */
export async function evaluateSource(source: string, ctx: BindingsText, signal?: AbortSignal): Promise<unknown> {
  const analysis = analyseExpression(source);
  const bindings = ctx.bindings as unknown as Record<string, unknown>;
  // The data-size check, counted at most once for both routes below.
  let within: boolean | undefined;
  const smallEnough = () => (within ??= reachWithin(analysis.accesses, bindings, MAX_FAST_PATH_VALUES));
  const v = directValue(analysis, bindings, smallEnough);
  if (v !== NOT_DIRECT) return v;
  let json: string | undefined;
  try {
    if (analysis.cheap && smallEnough()) {
      lastEvaluation = "main";
      try {
        json = await evaluateToJson(source, bindings, limits.timeoutMs);
      } catch (e) {
        throw new ExpressionFailed((e as Error).message, Boolean((e as { stopped?: boolean }).stopped));
      }
    } else {
      lastEvaluation = "pool";
      json = await expressionPool().run(source, ctx.for(analysis.steps), signal);
    }
  } catch (e) {
    if (e instanceof ExpressionStopped) limits.onStop?.(e.reason);
    else if (e instanceof ExpressionFailed && e.stopped) limits.onStop?.("time");
    throw e;
  }
  return json === undefined ? undefined : JSON.parse(json);
}
