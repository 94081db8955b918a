/**
 * `{{ … }}` templates with JSONata inside, evaluated against `$trigger` and `$steps` only.
 *
 * - A value that is exactly one `{{ }}` keeps the expression's type; mixed text becomes a string.
 * - Sandbox: bindings are deep-copied JSON (no functions, no prototypes reachable: JSONata only
 *   reads own properties), nothing else is bound; results are JSON round-tripped and capped in size.
 * - Where it runs (sandbox/): provably cheap expressions on the calling thread, everything else in
 *   terminable worker threads with a hard wall time and heap limit, so a poison expression stops
 *   its own thread, never the process's HTTP doors.
 * - Errors name the field and the reason (the runner adds the node); `stopped` marks a limit.
 */
import { CORE_LIMITS, compileExpression } from "./sandbox/evaluate-core.mjs";
import { BindingsText, evaluateDirect, evaluateSource, ExpressionFailed, ExpressionStopped, expressionSandboxLimits, NOT_DIRECT } from "./sandbox";
import { hasExpression, parseTemplate, textInTemplate, type Part } from "./templates";

export { hasExpression, parseTemplate, NOT_DIRECT };

export const EXPRESSION_LIMITS = CORE_LIMITS;

export interface ExpressionContext {
  trigger: unknown;
  steps: Record<string, unknown>;
}

export class ExpressionError extends Error {
  constructor(
    message: string,
    readonly field: string,
    readonly expression: string,
    /** A limit stopped the evaluation (wall time, heap, its worker thread died). */
    readonly stopped = false,
  ) {
    super(message);
    this.name = "ExpressionError";
  }

  /** The reason without the field prefix. */
  get reason(): string {
    return this.message.startsWith(`${this.field}: `) ? this.message.slice(this.field.length + 2) : this.message;
  }
}

/** Checks the syntax of every `{{ }}` in a template (save time). Returns the reason or null. */
export function checkTemplate(template: string): string | null {
  try {
    for (const part of parseTemplate(template)) if ("expr" in part) compileExpression(part.expr, expressionSandboxLimits().timeoutMs);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

function makeBindings(ctx: ExpressionContext): ExpressionContext {
  return { trigger: JSON.parse(JSON.stringify(ctx.trigger ?? null)), steps: JSON.parse(JSON.stringify(ctx.steps ?? {})) };
}

/** Evaluates one template string. */
export async function evaluateTemplate(
  template: string,
  ctx: ExpressionContext,
  field = "value",
  bindings: BindingsText = new BindingsText(makeBindings(ctx)),
  signal?: AbortSignal,
): Promise<unknown> {
  let parts: Part[];
  try {
    parts = parseTemplate(template);
  } catch (e) {
    throw new ExpressionError(`${field}: ${(e as Error).message}`, field, template);
  }
  try {
    if (parts.length === 1 && "expr" in parts[0]!) return await evaluateSource(parts[0].expr, bindings, signal);
    let out = "";
    for (const part of parts) {
      if ("text" in part) out += part.text;
      else {
        out += textInTemplate(await evaluateSource(part.expr, bindings, signal));
      }
      if (out.length > EXPRESSION_LIMITS.maxOutputBytes) throw new Error(`result is larger than ${EXPRESSION_LIMITS.maxOutputBytes} bytes`);
    }
    return out;
  } catch (e) {
    if (signal?.aborted && e === signal.reason) throw e;
    const stopped = e instanceof ExpressionStopped || (e instanceof ExpressionFailed && e.stopped);
    throw new ExpressionError(`${field}: ${(e as Error).message}`, field, template, stopped);
  }
}

function containsExpression(value: unknown): boolean {
  if (hasExpression(value)) return true;
  if (Array.isArray(value)) return value.some(containsExpression);
  if (value && typeof value === "object") return Object.values(value).some(containsExpression);
  return false;
}

/**
 * Resolves every `{{ }}` string inside a config value (objects and arrays walked).
 * `plain: true` promises the context is already plain JSON data (parsed from JSON), so the
 * defensive deep copy is skipped (the runner's message chain always is). `signal` abandons the
 * evaluations (a cancelled step): a queued one is dropped, a running one's thread is terminated.
 */
export async function resolveExpressions(config: unknown, ctx: ExpressionContext, opts: { plain?: boolean; signal?: AbortSignal } = {}): Promise<unknown> {
  if (!containsExpression(config)) return config;
  const bindings = new BindingsText(opts.plain ? { trigger: ctx.trigger, steps: ctx.steps } : makeBindings(ctx));
  const walk = async (value: unknown, path: string): Promise<unknown> => {
    if (hasExpression(value)) return evaluateTemplate(value, ctx, path || "value", bindings, opts.signal);
    if (Array.isArray(value)) return Promise.all(value.map((v, i) => walk(v, path ? `${path}.${i}` : String(i))));
    if (value && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        const r = await walk(v, path ? `${path}.${k}` : k);
        if (r !== undefined) out[k] = r;
      }
      return out;
    }
    return value;
  };
  return walk(config, "");
}

/** For the editor: evaluates a template against a sample context without throwing. */
export async function previewExpression(template: string, sample: ExpressionContext): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  try {
    return { ok: true, value: hasExpression(template) ? await evaluateTemplate(template, sample, "expression") : template };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** Rewrites `$steps.<old>` references in every node's config (renaming a node). */
export function renameNodeInGraph<G extends { nodes: Array<{ name: string; config: Record<string, unknown> }> }>(
  graph: G,
  oldName: string,
  newName: string,
): G {
  const esc = oldName.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const re = new RegExp(`(\\$steps\\s*\\.\\s*)(${esc}|\`${esc}\`)(?![A-Za-z0-9_])|(\\$steps\\s*\\[\\s*)(["'])${esc}\\4(\\s*\\])`, "g");
  const rewrite = (v: unknown): unknown => {
    if (hasExpression(v)) {
      return v.replace(re, (_m, a, _b, c, q, d) => (a !== undefined ? `${a}${newName}` : `${c}${q}${newName}${q}${d}`));
    }
    if (Array.isArray(v)) return v.map(rewrite);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rewrite(x)]));
    return v;
  };
  return {
    ...graph,
    nodes: graph.nodes.map((n) => ({ ...n, name: n.name === oldName ? newName : n.name, config: rewrite(n.config) as Record<string, unknown> })),
  };
}

/**
 * `resolveExpressions(config, ctx, { plain: true })` without a promise, for the runner's steps: the
 * resolved config when every `{{ }}` in it takes the direct route (most alert conditions), else
 * NOT_DIRECT, and the caller resolves it with `resolveExpressions` (which also names the field of
 * an expression that fails). `ctx` must be plain JSON data, as with `plain: true`.
 */
export function resolveExpressionsDirect(config: unknown, ctx: ExpressionContext): unknown {
  if (!containsExpression(config)) return config;
  const bindings = new BindingsText({ trigger: ctx.trigger, steps: ctx.steps });
  try {
    return walkDirect(config, bindings);
  } catch {
    return NOT_DIRECT; // resolveExpressions throws the same error, with the field named
  }
}

function walkDirect(value: unknown, bindings: BindingsText): unknown {
  if (hasExpression(value)) return templateDirect(value, bindings);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const v of value) {
      const r = walkDirect(v, bindings);
      if (r === NOT_DIRECT) return NOT_DIRECT;
      out.push(r);
    }
    return out;
  }
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const r = walkDirect(v, bindings);
      if (r === NOT_DIRECT) return NOT_DIRECT;
      if (r !== undefined) out[k] = r;
    }
    return out;
  }
  return value;
}

function templateDirect(template: string, bindings: BindingsText): unknown {
  const parts = parseTemplate(template);
  if (parts.length === 1 && "expr" in parts[0]!) return evaluateDirect(parts[0].expr, bindings);
  let out = "";
  for (const part of parts) {
    if ("text" in part) out += part.text;
    else {
      const v = evaluateDirect(part.expr, bindings);
      if (v === NOT_DIRECT) return NOT_DIRECT;
      out += textInTemplate(v);
    }
    if (out.length > EXPRESSION_LIMITS.maxOutputBytes) return NOT_DIRECT;
  }
  return out;
}
