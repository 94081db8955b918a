// JSONata evaluation shared by the main thread (fast path for provably cheap expressions) and the
// expression worker threads (everything else). Plain JavaScript on purpose: the worker entry must
// load without a TypeScript loader (tsx under tests, a bundle or plain node in production).
// Types: evaluate-core.d.mts.
import jsonata from "jsonata";

/** Limits inside one evaluation (the worker pool adds the hard wall time and heap limits). */
export const CORE_LIMITS = { maxDepth: 200, maxOutputBytes: 256 * 1024, maxSourceLength: 10_000 };

const cache = new Map();
let cachedTimeoutMs = 0;

/** Compiles (cached) with JSONata's own guardrails: evaluation depth and a soft time limit. */
export function compileExpression(source, timeoutMs) {
  if (timeoutMs !== cachedTimeoutMs) {
    cache.clear();
    cachedTimeoutMs = timeoutMs;
  }
  const key = source;
  let expr = cache.get(key);
  if (!expr) {
    if (source.length > CORE_LIMITS.maxSourceLength) throw new Error(`expression longer than ${CORE_LIMITS.maxSourceLength} characters`);
    try {
      expr = jsonata(source, { timeout: timeoutMs, stack: CORE_LIMITS.maxDepth });
    } catch (e) {
      // JSONata's own S0201 message starts "Syntax error: ", which read "syntax error: Syntax error: …".
      throw new Error(`syntax error: ${describeError(e, timeoutMs).message.replace(/^Syntax error: /, "")}`);
    }
    if (cache.size > 5000) cache.clear();
    cache.set(key, expr);
  }
  return expr;
}

/**
 * Turns a JSONata error into `{ message, stopped }`; `stopped` marks the expression's own time
 * limit (the same class of failure as a worker killed for time).
 */
export function describeError(e, timeoutMs) {
  const err = e ?? {};
  if (err.code === "D1011") return { message: `expression nested too deeply (limit ${CORE_LIMITS.maxDepth})`, stopped: false };
  if (err.code === "D1012") return { message: `it ran longer than ${timeoutMs} ms`, stopped: true };
  if (e instanceof RangeError) return { message: "expression recursed too deeply or built a value too large", stopped: false };
  const msg = err.message ?? String(e);
  return { message: err.position !== undefined ? `${msg} (at position ${err.position})` : msg, stopped: false };
}

/**
 * Evaluates one JSONata expression against `$trigger` / `$steps` and returns its result as JSON
 * text (undefined when the expression yields nothing), refusing results above the output cap.
 */
export async function evaluateToJson(source, bindings, timeoutMs) {
  const expr = compileExpression(source, timeoutMs);
  let result;
  try {
    result = await expr.evaluate(undefined, bindings);
  } catch (e) {
    throw Object.assign(new Error(describeError(e, timeoutMs).message), { stopped: describeError(e, timeoutMs).stopped });
  }
  if (result === undefined) return undefined;
  const json = JSON.stringify(result);
  if (json === undefined) return undefined;
  if (json.length > CORE_LIMITS.maxOutputBytes) throw new Error(`expression result is larger than ${CORE_LIMITS.maxOutputBytes} bytes`);
  return json;
}
