/**
 * Direct evaluation of the simplest expressions, without JSONata's evaluator.
 *
 * Alert routing conditions are mostly a path compared with a literal (`$trigger.data.status =
 * 'firing'`), joined by `and` / `or`. JSONata evaluates every syntax node through an async function
 * and builds a sequence per path step: for such an expression that was about 40 % of everything the
 * runner allocated per run (bench/runner.ts, sampled allocations). Here the syntax tree is compiled
 * once into plain closures over the same rules, for this subset only:
 *
 * - literals; `$trigger` / `$steps` and paths of plain names from them (own properties only, as
 *   JSONata's lookup);
 * - `=` `!=` on scalars; `<` `<=` `>` `>=` on two numbers or two strings; `and` `or`, `? :`,
 *   `$boolean`, `$not` on scalars (an object's truth lists its keys); unary `-` on a number;
 * - `$exists` and `$count` of one argument (of a path: also an array at its end), and
 *   `$count($keys(…))` (after the caller bounded the data it reads).
 *
 * Whenever JSONata's rules go beyond that (an array anywhere, which JSONata maps and flattens;
 * objects compared; mismatched types, which JSONata reports as errors), the closure answers
 * FALLBACK and the caller evaluates the expression with JSONata as before. So a result from here is
 * always the result JSONata gives: direct.test.ts checks that on generated expressions and data.
 */

export const FALLBACK: unique symbol = Symbol("fallback");
type Value = unknown;
type Bindings = Record<string, unknown>;
export type DirectFn = (b: Bindings) => Value | typeof FALLBACK;

type Node = Record<string, unknown> & { type: string; value?: unknown };

/** Keys a node may carry: anything else (predicates, stages, `[]`, grouping, …) is out of the subset. */
const STRUCTURE = new Set(["type", "value", "position", "lhs", "rhs", "steps", "arguments", "procedure", "condition", "then", "else", "expression"]);

function plain(node: unknown): node is Node {
  if (!node || typeof node !== "object" || Array.isArray(node)) return false;
  for (const [k, v] of Object.entries(node)) if (v !== undefined && !STRUCTURE.has(k)) return false;
  return typeof (node as Node).type === "string";
}

const isScalar = (v: Value): boolean => v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean";

/**
 * JSONata's effective boolean value of a scalar (or undefined); FALLBACK for an object, whose truth
 * needs its keys listed: work that grows with the data, which the JSONata route bounds first.
 */
function bool(v: Value): boolean | typeof FALLBACK {
  if (v === undefined || v === null) return false;
  if (typeof v === "string") return v.length > 0;
  if (typeof v === "number") return v !== 0 && Number.isFinite(v);
  if (typeof v === "boolean") return v;
  return FALLBACK;
}

/**
 * A plain object's own property; undefined below a scalar; FALLBACK at an array on the way (JSONata
 * maps over it). An array at the end is FALLBACK too unless `finalArray` (JSONata returns it as is).
 */
function path(root: string, names: string[], finalArray = false): DirectFn {
  return (b) => {
    let v: Value = b[root];
    for (let i = 0; i < names.length; i++) {
      if (v === null || typeof v !== "object") return undefined;
      if (Array.isArray(v)) return FALLBACK;
      v = Object.hasOwn(v, names[i]!) ? (v as Record<string, unknown>)[names[i]!] : undefined;
    }
    return Array.isArray(v) && !finalArray ? FALLBACK : v;
  };
}

/** A `$trigger` / `$steps` path of plain names, or null. */
function pathOf(n: Node, finalArray = false): DirectFn | null {
  if (n.type === "variable") return n.value === "trigger" || n.value === "steps" ? path(n.value, [], finalArray) : null;
  if (n.type !== "path") return null;
  const steps = n.steps as unknown[] | undefined;
  if (!steps?.length || !steps.every(plain)) return null;
  const [first, ...rest] = steps as Node[];
  if (first!.type !== "variable" || (first!.value !== "trigger" && first!.value !== "steps")) return null;
  if (!rest.every((s) => s.type === "name" && typeof s.value === "string")) return null;
  return path(
    first!.value,
    rest.map((s) => s.value as string),
    finalArray,
  );
}

/** Both operands, left first; FALLBACK from either ends the evaluation. */
function operands(l: DirectFn, r: DirectFn, f: (x: Value, y: Value) => Value | typeof FALLBACK): DirectFn {
  return (b) => {
    const x = l(b);
    if (x === FALLBACK) return FALLBACK;
    const y = r(b);
    return y === FALLBACK ? FALLBACK : f(x, y);
  };
}

const COMPARE: Record<string, (a: number | string, c: number | string) => boolean> = {
  "<": (a, c) => a < c,
  "<=": (a, c) => a <= c,
  ">": (a, c) => a > c,
  ">=": (a, c) => a >= c,
};
const comparable = (t: string) => t === "undefined" || t === "string" || t === "number";

function binary(op: string, l: DirectFn, r: DirectFn): DirectFn | null {
  switch (op) {
    case "=":
    case "!=": {
      const eq = op === "=";
      return operands(l, r, (x, y) => {
        if (x === undefined || y === undefined) return false;
        if (!isScalar(x) || !isScalar(y)) return FALLBACK;
        return eq ? x === y : x !== y;
      });
    }
    case "<":
    case "<=":
    case ">":
    case ">=": {
      const compare = COMPARE[op]!;
      return operands(l, r, (x, y) => {
        const tx = typeof x;
        const ty = typeof y;
        if (!comparable(tx) || !comparable(ty)) return FALLBACK;
        if (x === undefined || y === undefined) return undefined;
        return tx === ty ? compare(x as number | string, y as number | string) : FALLBACK;
      });
    }
    case "and":
    case "or": {
      const and = op === "and";
      return (b) => {
        const x = l(b);
        if (x === FALLBACK) return FALLBACK;
        const bx = bool(x);
        if (bx === FALLBACK) return FALLBACK;
        if (bx !== and) return !and;
        const y = r(b);
        return y === FALLBACK ? FALLBACK : bool(y);
      };
    }
    default:
      return null;
  }
}

function call(name: string, args: unknown[], uses: Uses): DirectFn | null {
  if (args.length !== 1) return null;
  const arg = args[0] as Node;
  if (name === "count" && plain(arg) && arg.type === "function") {
    // $count($keys(x)): the number of own keys of an object.
    const proc = arg.procedure as Node | undefined;
    const inner = arg.arguments as unknown[] | undefined;
    if (!plain(proc) || proc.type !== "variable" || proc.value !== "keys" || inner?.length !== 1) return null;
    const x = compile(inner[0], uses);
    if (!x) return null;
    uses.keys = true;
    return (b) => {
      const v = x(b);
      if (v === FALLBACK) return FALLBACK;
      return v !== null && typeof v === "object" ? Object.keys(v).length : 0;
    };
  }
  if (name === "count" && plain(arg)) {
    // $count(path): an array at its end is counted as is (its length), as JSONata does.
    const p = pathOf(arg, true);
    if (p)
      return (b) => {
        const v = p(b);
        return v === FALLBACK ? FALLBACK : v === undefined ? 0 : Array.isArray(v) ? v.length : 1;
      };
  }
  const x = compile(arg, uses);
  if (!x) return null;
  switch (name) {
    case "exists":
      return (b) => {
        const v = x(b);
        return v === FALLBACK ? FALLBACK : v !== undefined;
      };
    case "boolean":
      return (b) => {
        const v = x(b);
        return v === FALLBACK || v === undefined ? v : bool(v);
      };
    case "not":
      return (b) => {
        const v = x(b);
        if (v === FALLBACK || v === undefined) return v;
        const t = bool(v);
        return t === FALLBACK ? FALLBACK : !t;
      };
    case "count":
      return (b) => {
        const v = x(b);
        return v === FALLBACK ? FALLBACK : v === undefined ? 0 : 1;
      };
    default:
      return null;
  }
}

/** What a compiled expression does besides constant work per node. */
interface Uses {
  /** Lists an object's keys (work linear in its size: the caller bounds the data first). */
  keys: boolean;
}

function compile(ast: unknown, uses: Uses): DirectFn | null {
  if (!plain(ast)) return null;
  const n = ast;
  switch (n.type) {
    case "string":
    case "number":
    case "value": {
      const v = n.value;
      if (!isScalar(v) || (typeof v === "number" && !Number.isFinite(v))) return null;
      return () => v;
    }
    case "variable":
    case "path":
      return pathOf(n);
    case "binary": {
      const l = compile(n.lhs, uses);
      const r = compile(n.rhs, uses);
      return l && r ? binary(String(n.value), l, r) : null;
    }
    case "condition": {
      const c = compile(n.condition, uses);
      const t = compile(n.then, uses);
      const e = n.else === undefined ? () => undefined : compile(n.else, uses);
      if (!c || !t || !e) return null;
      return (b) => {
        const x = c(b);
        const v = x === FALLBACK ? FALLBACK : bool(x);
        if (v === FALLBACK) return FALLBACK;
        return v ? t(b) : e(b);
      };
    }
    case "unary": {
      if (n.value !== "-") return null;
      const x = compile(n.expression, uses);
      if (!x) return null;
      return (b) => {
        const v = x(b);
        if (v === FALLBACK || v === undefined) return v;
        return typeof v === "number" ? (v === 0 ? 0 : -v) : FALLBACK;
      };
    }
    case "function": {
      const proc = n.procedure;
      if (!plain(proc) || proc.type !== "variable" || typeof proc.value !== "string") return null;
      return call(proc.value, (n.arguments as unknown[] | undefined) ?? [], uses);
    }
    default:
      return null;
  }
}

export interface Direct {
  run: DirectFn;
  /** Its work grows with the size of the data it reads (`$keys`): bound the data first (reachWithin). */
  readsWhole: boolean;
}

/** Compiles a parsed expression (`jsonata(src).ast()`), or null when it is outside the subset. */
export function compileDirect(ast: unknown): Direct | null {
  const uses: Uses = { keys: false };
  const run = compile(ast, uses);
  return run ? { run, readsWhole: uses.keys } : null;
}
