/**
 * Decides from an expression's JSONata syntax tree whether it is provably cheap enough to run on
 * the main thread: its work and its result are bounded by (its size) × (the size of the data it
 * reads), with no way to loop, recurse, build large values or backtrack. Anything else (function
 * definitions, regexes, ranges, wildcards, blocks and bindings, sorting, grouping, most functions)
 * goes to the worker pool. Conservative on purpose: a false "expensive" costs a thread round trip, a
 * false "cheap" could stall the HTTP doors.
 *
 * The syntax alone does not bound the work: JSONata costs roughly a microsecond per (syntax node ×
 * data value) it visits, so a cheap-looking expression over a 1.5 MB payload can take a second.
 * The analysis therefore also lists the data each expression can reach (`accesses`: the static
 * path from `$trigger` / `$steps.<name>` up to the first array fan-out, filter or end), and
 * `reachWithin` counts the values under those points at run time, within a small budget.
 *
 * Also reports which `$steps` entries the expression reads, so the pool is sent only those.
 */

/** Functions whose result is no larger than their input and whose work is linear in it. */
const CHEAP_FUNCTIONS = new Set([
  "count",
  "exists",
  "boolean",
  "not",
  "number",
  "string",
  "length",
  "uppercase",
  "lowercase",
  "trim",
  "contains",
  "substring",
  "substringBefore",
  "substringAfter",
  "sum",
  "max",
  "min",
  "average",
  "keys",
  "lookup",
  "type",
  "abs",
  "floor",
  "ceil",
  "round",
  "now",
  "millis",
]);

const CHEAP_BINARY = new Set(["=", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "&", "and", "or", "in"]);

/** Most AST nodes a fast-path expression may have (bounds the work per byte of input). */
export const MAX_CHEAP_NODES = 40;
/** Longest source the fast path takes. */
export const MAX_CHEAP_SOURCE = 400;

type Node = {
  type: string;
  value?: unknown;
  steps?: Node[];
  stages?: Array<{ type: string; expr?: Node }>;
  predicate?: Array<{ type: string; expr?: Node }>;
  lhs?: Node | Node[][];
  rhs?: Node;
  expression?: Node;
  expressions?: Node[];
  condition?: Node;
  then?: Node;
  else?: Node;
  procedure?: Node;
  arguments?: Node[];
  [k: string]: unknown;
};

const STEP_EXTRAS = ["group", "focus", "index", "tuple", "ancestor", "seekingParent", "nextFunction"];

export interface Analysis {
  /** The syntax is cheap (the data size is checked separately: reachWithin). */
  cheap: boolean;
  /** Names under `$steps` the expression reads; null when it reads `$steps` as a whole or dynamically. */
  steps: Set<string> | null;
  /** Where a cheap expression reads data: a binding name then static property names. */
  accesses: string[][];
}

/** Analyses a parsed expression (`jsonata(src).ast()`). */
export function analyse(ast: unknown, source: string): Analysis {
  const steps = new Set<string>();
  const accesses: string[][] = [];
  let dynamicSteps = false;
  let nodes = 0;
  let cheap = source.length <= MAX_CHEAP_SOURCE;

  // Collects `$steps.<name>` reads for the whole tree (cheap or not).
  const collect = (n: unknown, parent?: Node, index?: number): void => {
    if (!n || typeof n !== "object") return;
    if (Array.isArray(n)) {
      n.forEach((c, i) => collect(c, parent, i));
      return;
    }
    const node = n as Node;
    if (node.type === "variable" && node.value === "steps") {
      // `$steps["x"]` is a filter in JSONata (it yields `$steps` itself), not a lookup: dynamic.
      const next = parent?.type === "path" && index !== undefined ? parent.steps?.[index + 1] : undefined;
      if (parent?.type === "path" && index === 0 && next?.type === "name" && !node.predicate && !node.stages) steps.add(String(next.value));
      else dynamicSteps = true;
    }
    for (const [k, v] of Object.entries(node)) {
      if (k === "steps" && node.type === "path") (v as Node[]).forEach((c, i) => collect(c, node, i));
      else if (v && typeof v === "object") collect(v, node);
    }
  };

  const filters = (list: Array<{ type: string; expr?: Node }> | undefined, inner: boolean): boolean =>
    !list || list.every((f) => f.type === "filter" && f.expr !== undefined && ok(f.expr, inner));

  // `inner`: evaluated once per item of a sequence (inside a predicate or a later path step).
  const ok = (node: Node, inner: boolean): boolean => {
    if (++nodes > MAX_CHEAP_NODES) return false;
    switch (node.type) {
      case "string":
      case "number":
      case "value":
        return !node.stages && !node.predicate;
      case "variable": {
        const v = node.value;
        const allowed = inner ? v === "" : v === "trigger" || v === "steps";
        // `$steps["name"]`: a lookup by a literal name only.
        const lookup = !node.predicate || node.predicate.every((f) => f.type === "filter" && (f.expr?.type === "string" || f.expr?.type === "number"));
        if (allowed && !inner) accesses.push([v as string]); // the whole binding (a path refines it below)
        return allowed && lookup && !node.stages;
      }
      case "name":
        return filters(node.stages, true) && filters(node.predicate, true);
      case "path": {
        if (STEP_EXTRAS.some((k) => node[k] !== undefined)) return false;
        const list = node.steps ?? [];
        const fine = list.every((s, i) => {
          if (STEP_EXTRAS.some((k) => s[k] !== undefined)) return false;
          if (i === 0) return s.type === "variable" || s.type === "name" ? ok(s, inner) : false;
          return s.type === "name" && ok(s, true);
        });
        if (fine && !inner && list[0]?.type === "variable") {
          // Refine the access the variable step recorded: follow static names until a filter stops it.
          const access = accesses[accesses.length - 1]!;
          for (let i = 0; i < list.length && !list[i]!.predicate; i++) {
            if (i > 0) access.push(String(list[i]!.value));
            if (list[i]!.stages) break;
          }
        }
        return fine;
      }
      case "binary":
        return CHEAP_BINARY.has(node.value as string) && ok(node.lhs as Node, inner) && ok(node.rhs!, inner) && !node.stages && !node.predicate;
      case "unary":
        if (node.stages || node.predicate) return false;
        if (node.value === "-") return ok(node.expression!, inner);
        if (node.value === "[") return (node.expressions ?? []).every((e) => ok(e, inner));
        if (node.value === "{") return ((node.lhs as Node[][]) ?? []).every(([k, v]) => ok(k!, inner) && ok(v!, inner));
        return false;
      case "condition":
        return ok(node.condition!, inner) && ok(node.then!, inner) && (node.else === undefined || ok(node.else, inner));
      case "function":
        return (
          node.procedure?.type === "variable" &&
          CHEAP_FUNCTIONS.has(node.procedure.value as string) &&
          !node.procedure.predicate &&
          !node.stages &&
          !node.predicate &&
          (node.arguments ?? []).every((a) => ok(a, inner))
        );
      default:
        return false;
    }
  };

  collect(ast);
  if (cheap) cheap = ok(ast as Node, false);
  return { cheap, steps: dynamicSteps ? null : steps, accesses };
}

/**
 * Whether the data a cheap expression can reach holds at most `budget` JSON values: follows each
 * access through plain objects (an array means the path fans out over it: its whole subtree
 * counts), then counts the values below, stopping as soon as the budget is spent.
 */
export function reachWithin(accesses: string[][], bindings: Record<string, unknown>, budget: number): boolean {
  let left = budget;
  const count = (v: unknown): boolean => {
    if (--left < 0) return false;
    if (v === null || typeof v !== "object") return true;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (!count(v[i])) return false;
    } else {
      for (const k in v) if (!count((v as Record<string, unknown>)[k])) return false;
    }
    return true;
  };
  for (const [root, ...names] of accesses) {
    let v: unknown = bindings[root!];
    for (const name of names) {
      if (!v || typeof v !== "object" || Array.isArray(v)) break;
      v = Object.hasOwn(v, name) ? (v as Record<string, unknown>)[name] : undefined;
    }
    if (!count(v)) return false;
  }
  return true;
}
