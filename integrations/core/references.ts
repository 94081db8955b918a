/**
 * Which `$steps.<name>…` and `$trigger…` paths a node's config reads, and whether they can ever have
 * a value. References are found by parsing each `{{ }}` with JSONata and walking its syntax tree
 * (not with regexes), so `$count($steps.a.data.x)`, `$steps["a"]` and `$lookup($steps, "a")` count too.
 *
 * Checks (pure: graph + units in, problems out; the save-time validator and the editor share them):
 * - `$steps.<name>`: the node exists (else "did you mean", nearest name by edit distance), is not the
 *   node itself nor a trigger (triggers are `$trigger`), and runs before the node (an upstream path);
 *   upstream on only some of the paths into the node is a warning (empty when the event came another way).
 * - the envelope part is `type`, `timestamp` or `data`.
 * - `…data.<field>…` against the producer's declared output schema: a field that a closed object does
 *   not declare is a warning (the upstream may still send it); maps (labels) and open objects accept any key.
 */
import jsonata from "jsonata";
import { hasExpression, parseTemplate } from "./templates";

export interface Reference {
  root: "steps" | "trigger";
  /** Node name for `$steps` references. */
  step?: string;
  /** Property names after the root (after the node name for `$steps`), up to the first dynamic part. */
  path: string[];
}

type Ast = Record<string, unknown> & { type?: string; value?: unknown };

const ROOTS = new Set(["steps", "trigger"]);

/** Property names of a path's steps, stopping after the first one that is not a plain (or indexed) name. */
function names(steps: Ast[]): string[] {
  const out: string[] = [];
  for (const s of steps) {
    if (s.type !== "name" || typeof s.value !== "string") break;
    out.push(s.value);
    const filters = [...((s.stages as Ast[] | undefined) ?? []), ...((s.predicate as Ast[] | undefined) ?? [])];
    const indexOnly = filters.every((f) => f.type === "filter" && (f.expr as Ast | undefined)?.type === "number");
    if (!indexOnly || s.group || s.focus || s.index || s.tuple) break;
  }
  return out;
}

function fromRoot(variable: Ast, rest: Ast[]): Reference | null {
  const root = variable.value as "steps" | "trigger";
  if (root === "trigger") return { root, path: names(rest) };
  const filter = ((variable.predicate as Ast[] | undefined) ?? []).find((p) => p.type === "filter" && (p.expr as Ast | undefined)?.type === "string");
  if (filter) return { root, step: String((filter.expr as Ast).value), path: names(rest) };
  const [first, ...after] = rest;
  if (first?.type !== "name" || typeof first.value !== "string") return null; // `$steps` on its own: dynamic
  return { root, step: first.value, path: first.stages || first.predicate ? [] : names(after) };
}

/** References in one JSONata expression (none when it does not parse: syntax is reported elsewhere). */
export function referencesInExpression(source: string): Reference[] {
  let ast: Ast;
  try {
    ast = jsonata(source).ast() as unknown as Ast;
  } catch {
    return [];
  }
  const out: Reference[] = [];
  const done = new WeakSet<object>();
  const visit = (node: unknown): void => {
    if (!node || typeof node !== "object" || done.has(node)) return;
    done.add(node);
    if (Array.isArray(node)) return node.forEach(visit);
    const n = node as Ast;
    const isRoot = (x: unknown): boolean => !!x && (x as Ast).type === "variable" && ROOTS.has(String((x as Ast).value));
    if (n.type === "path" && Array.isArray(n.steps) && isRoot(n.steps[0])) {
      const ref = fromRoot(n.steps[0] as Ast, n.steps.slice(1) as Ast[]);
      if (ref) out.push(ref);
      done.add(n.steps[0]);
      visit((n.steps[0] as Ast).predicate);
      visit((n.steps[0] as Ast).stages);
    } else if (isRoot(n)) {
      const ref = fromRoot(n, []);
      if (ref && (ref.root === "trigger" || ref.step)) out.push(ref);
    } else if (n.type === "function" && (n.procedure as Ast | undefined)?.value === "lookup") {
      const [obj, key] = (n.arguments as Ast[] | undefined) ?? [];
      if (obj?.type === "variable" && obj.value === "steps" && key?.type === "string") {
        out.push({ root: "steps", step: String(key.value), path: [] });
        done.add(obj);
      }
    }
    for (const [k, v] of Object.entries(n)) if (k !== "position" && k !== "value") visit(v);
  };
  visit(ast);
  return out;
}

/** References in a template string (`{{ … }}` parts only). */
export function referencesInTemplate(template: string): Reference[] {
  if (!hasExpression(template)) return [];
  let parts: ReturnType<typeof parseTemplate>;
  try {
    parts = parseTemplate(template);
  } catch {
    return [];
  }
  return parts.flatMap((p) => ("expr" in p ? referencesInExpression(p.expr) : []));
}

/** Every templated string of a config with its dotted path (`matchers.0.value`). */
export function templatesIn(value: unknown, path = ""): Array<{ path: string; template: string }> {
  if (hasExpression(value)) return [{ path, template: value }];
  const join = (k: string | number) => (path ? `${path}.${k}` : String(k));
  if (Array.isArray(value)) return value.flatMap((v, i) => templatesIn(v, join(i)));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => templatesIn(v, join(k)));
  return [];
}

// ---------------------------------------------------------------------------------------------
// "did you mean"

export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** The candidate nearest to `word` when it is close enough to be a likely typo (case differences count little). */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const score = c.toLowerCase() === word.toLowerCase() ? 0.5 : editDistance(word.toLowerCase(), c.toLowerCase());
    if (score < bestScore) [best, bestScore] = [c, score];
  }
  const limit = Math.max(2, Math.floor(word.length / 3));
  return bestScore <= limit ? best : undefined;
}

const didYouMean = (s: string | undefined, show = (x: string) => x) => (s ? ` Did you mean ${show(s)}?` : "");

// ---------------------------------------------------------------------------------------------
// Output schemas (JSON Schema as the catalog serves it)

export type JsonSchemaLike = Record<string, unknown>;

type Walk = { ok: true } | { ok: false; at: number; known: string[]; primitive?: string };

function deref(s: JsonSchemaLike, root: JsonSchemaLike): JsonSchemaLike {
  const ref = s.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) return s;
  let cur: unknown = root;
  for (const part of ref.slice(2).split("/")) cur = (cur as Record<string, unknown> | undefined)?.[part];
  return (cur as JsonSchemaLike | undefined) ?? {};
}

function alternatives(s: JsonSchemaLike, root: JsonSchemaLike): JsonSchemaLike[] {
  const d = deref(s, root);
  const alts = (d.anyOf ?? d.oneOf) as JsonSchemaLike[] | undefined;
  if (alts) return alts.flatMap((a) => alternatives(a, root)).filter((a) => a.type !== "null");
  return [d];
}

function walk(schema: JsonSchemaLike, path: string[], i: number, root: JsonSchemaLike): Walk {
  if (i >= path.length) return { ok: true };
  const alts = alternatives(schema, root);
  let firstFailure: Walk | null = null;
  for (const alt of alts) {
    const r = walkOne(alt, path, i, root);
    if (r.ok) return r;
    firstFailure ??= r;
  }
  return firstFailure ?? { ok: true };
}

function walkOne(s: JsonSchemaLike, path: string[], i: number, root: JsonSchemaLike): Walk {
  const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === "string" ? [s.type] : [];
  // JSONata maps over arrays: `alerts.labels` reads `labels` of every element.
  if (types.includes("array") || s.items || s.prefixItems) {
    const items = (s.prefixItems as JsonSchemaLike[] | undefined) ?? (s.items ? [s.items as JsonSchemaLike] : []);
    if (!items.length) return { ok: true };
    return walk({ anyOf: items }, path, i, root);
  }
  const props = s.properties as Record<string, JsonSchemaLike> | undefined;
  const seg = path[i]!;
  if (props && Object.prototype.hasOwnProperty.call(props, seg)) return walk(props[seg]!, path, i + 1, root);
  if (types.length && types.every((t) => t === "string" || t === "number" || t === "integer" || t === "boolean" || t === "null")) {
    return { ok: false, at: i, known: [], primitive: types.find((t) => t !== "null") ?? "null" };
  }
  if (props && s.additionalProperties === false) return { ok: false, at: i, known: Object.keys(props) };
  if (s.additionalProperties && typeof s.additionalProperties === "object") return walk(s.additionalProperties as JsonSchemaLike, path, i + 1, root);
  return { ok: true }; // open object or unknown shape: anything goes
}

/** Checks `path` (below `data`) against an output schema; null when it may exist. */
export function outputFieldProblem(schema: JsonSchemaLike | undefined, path: string[], producer: string): string | null {
  if (!schema || !path.length) return null;
  const r = walk(schema, path, 0, schema);
  if (r.ok) return null;
  const where = ["data", ...path.slice(0, r.at)].join(".");
  const seg = path[r.at]!;
  if (r.primitive) return `${where} of ${producer} is a ${r.primitive}; it has no field "${seg}".`;
  return `${producer}'s output has no field "${seg}" in ${where}.${didYouMean(closest(seg, r.known), (x) => `"${x}"`)}`;
}

// ---------------------------------------------------------------------------------------------
// Checking a graph

export interface RefUnit {
  kind: "trigger" | "component";
  /** JSON Schema of the emitted `data`. */
  output?: JsonSchemaLike;
}

export interface RefGraph {
  nodes: Array<{ id: string; name: string; key: string; config: Record<string, unknown> }>;
  edges: Array<{ from: string; to: string }>;
}

export interface ReferenceProblem {
  nodeId: string;
  /** Index of the node in `graph.nodes`. */
  nodeIndex: number;
  /** Config path of the field holding the expression (`matchers.0.value`). */
  path: string;
  message: string;
  severity: "error" | "warning";
  /** The step name the reference names (for `$steps` problems). */
  step?: string;
}

const ENVELOPE = ["type", "timestamp", "data"];

function reachable(starts: string[], adj: Map<string, string[]>, without?: string): Set<string> {
  const seen = new Set<string>();
  const queue = starts.filter((s) => s !== without);
  while (queue.length) {
    const id = queue.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const next of adj.get(id) ?? []) if (next !== without) queue.push(next);
  }
  return seen;
}

/** Every reference problem of a graph. `unitOf` answers the kind and output schema of a key (undefined: unknown key). */
export function checkReferences(graph: RefGraph, unitOf: (key: string) => RefUnit | undefined): ReferenceProblem[] {
  const byName = new Map(graph.nodes.map((n) => [n.name, n]));
  const adj = new Map<string, string[]>();
  const radj = new Map<string, string[]>();
  for (const e of graph.edges) {
    adj.set(e.from, [...(adj.get(e.from) ?? []), e.to]);
    radj.set(e.to, [...(radj.get(e.to) ?? []), e.from]);
  }
  const triggers = graph.nodes.filter((n) => unitOf(n.key)?.kind === "trigger").map((n) => n.id);
  const upstreamCache = new Map<string, Set<string>>();
  const upstream = (id: string) => {
    let set = upstreamCache.get(id);
    if (!set) {
      set = reachable(radj.get(id) ?? [], radj);
      upstreamCache.set(id, set);
    }
    return set;
  };
  const out: ReferenceProblem[] = [];
  graph.nodes.forEach((node, nodeIndex) => {
    if (unitOf(node.key)?.kind === "trigger") return; // trigger settings are not resolved against events
    const seen = new Set<string>();
    const push = (path: string, message: string, severity: "error" | "warning", step?: string) => {
      const k = `${path}\n${message}`;
      if (seen.has(k)) return;
      seen.add(k);
      out.push({ nodeId: node.id, nodeIndex, path, message, severity, ...(step ? { step } : {}) });
    };
    for (const { path, template } of templatesIn(node.config)) {
      for (const ref of referencesInTemplate(template)) {
        if (ref.root === "steps") checkStep(ref, path, push);
        else checkTrigger(ref, path, push);
      }
    }

    function envelopeProblem(ref: Reference, label: string, data: JsonSchemaLike | undefined): string | null {
      const first = ref.path[0];
      if (first === undefined || ENVELOPE.includes(first)) return null;
      const inData =
        data && !outputFieldProblem(data, [first], "") ? ` Did you mean ${label}.data.${first}?` : didYouMean(closest(first, ENVELOPE), (x) => `${label}.${x}`);
      return `${label} has no "${first}": an event has type, timestamp and data.${inData}`;
    }

    function checkStep(ref: Reference, path: string, push: (p: string, m: string, s: "error" | "warning", step?: string) => void) {
      const name = ref.step!;
      const label = `$steps.${name}`;
      const target = byName.get(name);
      if (!target) {
        const names = graph.nodes.filter((n) => n.id !== node.id && unitOf(n.key)?.kind !== "trigger").map((n) => n.name);
        return push(path, `No step is named "${name}".${didYouMean(closest(name, names), (x) => `$steps.${x}`)}`, "error", name);
      }
      if (target.id === node.id) return push(path, `${label} is this step's own output, which does not exist yet while it runs.`, "error", name);
      const unit = unitOf(target.key);
      if (unit?.kind === "trigger") return push(path, `"${name}" is the trigger: read its event as $trigger, not ${label}.`, "error", name);
      if (!upstream(node.id).has(target.id)) {
        return push(
          path,
          `"${name}" does not run before "${node.name}", so ${label} never has a value here. Connect ${name} upstream of ${node.name}.`,
          "error",
          name,
        );
      }
      const env = envelopeProblem(ref, label, unit?.output);
      if (env) return push(path, env, "error", name);
      if (triggers.length && reachable(triggers, adj, target.id).has(node.id)) {
        push(path, `"${name}" is on only some of the paths into "${node.name}": when the event arrives another way, ${label} is empty.`, "warning", name);
      }
      if (ref.path[0] === "data") {
        const field = outputFieldProblem(unit?.output, ref.path.slice(1), name);
        if (field) push(path, field, "warning", name);
      }
    }

    function checkTrigger(ref: Reference, path: string, push: (p: string, m: string, s: "error" | "warning") => void) {
      const mine = triggers.filter((t) => upstream(node.id).has(t)).map((t) => graph.nodes.find((n) => n.id === t)!);
      const outputs = mine.map((t) => ({ name: t.name, output: unitOf(t.key)?.output }));
      const env = envelopeProblem(ref, "$trigger", outputs.length === 1 ? outputs[0]!.output : undefined);
      if (env) return push(path, env, "error");
      if (ref.path[0] !== "data" || !outputs.length) return;
      const found = outputs.map((o) => outputFieldProblem(o.output, ref.path.slice(1), `The trigger ${o.name}`));
      if (found.every((f) => f)) push(path, found[0]!, "warning");
    }
  });
  return out;
}
