/**
 * The automations the repository's own tests create, found by reading the tests: every object
 * literal with a `nodes` list of `{ key: "<integration>.<name>" … }` objects in a test, spec or test
 * fixture file (with its surrounding document when it is a `graph:`), evaluated without running the
 * test. Values that are only known at run time (variables without an initializer, calls) become
 * markers: `connectionId` → the corpus workspace's connection for the node's integration; anything
 * else is left out. So the corpus follows the tests as they are added, with no list to keep.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

export const UNKNOWN = Symbol("unknown");
const LOOPBACK = "http://127.0.0.1:9";
let secrets = 0;
export interface HarvestedDocument {
  origin: string;
  doc: Record<string, unknown>;
}

const SKIP_DIRS = new Set(["node_modules", ".git", "data", "public"]);
const isTestFile = (rel: string) => /\.(test|spec)\.tsx?$/.test(rel) || /(^|\/)testing\/[^/]+\.ts$/.test(rel) || /^e2e\/.*\.ts$/.test(rel);

function files(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (SKIP_DIRS.has(e.name) || e.name.startsWith(".")) continue;
      const abs = path.join(d, e.name);
      if (e.isDirectory()) walk(abs);
      else if (isTestFile(path.relative(root, abs).split(path.sep).join("/"))) out.push(abs);
    }
  };
  walk(root);
  return out.sort();
}

function propName(n: ts.PropertyName): string | undefined {
  return ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isNumericLiteral(n) ? n.text : undefined;
}

/** The initializer of the nearest declaration of `name` visible from `from` (variables and parameters with defaults). */
function declaredValue(name: string, from: ts.Node): ts.Expression | undefined {
  for (let scope: ts.Node | undefined = from.parent; scope; scope = scope.parent) {
    let found: ts.Expression | undefined;
    const visit = (n: ts.Node): void => {
      if (found) return;
      if ((ts.isVariableDeclaration(n) || ts.isParameter(n)) && ts.isIdentifier(n.name) && n.name.text === name && n.initializer) found = n.initializer;
      else if (!ts.isFunctionLike(n) || n === scope) ts.forEachChild(n, visit);
    };
    if (ts.isFunctionLike(scope)) scope.parameters.forEach(visit);
    if (ts.isBlock(scope) || ts.isSourceFile(scope) || ts.isModuleBlock(scope)) scope.statements.forEach(visit);
    if (found) return found;
  }
  return undefined;
}

type Env = Map<string, unknown>;
/** Fixture builders imported from `testing/` modules, called for real (e.g. linearGraph). */
type Builders = Map<string, (...args: unknown[]) => unknown>;
let builders: Builders = new Map();

/** A local function (`const node = (…) => ({…})` or `function graph(…) { return {…} }`) declared as `name`. */
function localFunction(name: string, from: ts.Node): ts.FunctionLikeDeclaration | undefined {
  const init = declaredValue(name, from);
  if (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) return init;
  let found: ts.FunctionDeclaration | undefined;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isFunctionDeclaration(n) && n.name?.text === name) found = n;
    else ts.forEachChild(n, visit);
  };
  visit(from.getSourceFile());
  return found;
}

function callLocal(fn: ts.FunctionLikeDeclaration, args: unknown[], depth: number): unknown {
  const env: Env = new Map();
  fn.parameters.forEach((p, i) => {
    if (!ts.isIdentifier(p.name)) return;
    const v = args[i] === undefined && p.initializer ? evaluate(p.initializer, depth + 1, env) : args[i];
    env.set(p.name.text, v === undefined ? UNKNOWN : v);
  });
  const body = fn.body;
  if (!body) return UNKNOWN;
  if (!ts.isBlock(body)) return evaluate(body, depth + 1, env);
  const ret = body.statements.find(ts.isReturnStatement);
  return ret?.expression ? evaluate(ret.expression, depth + 1, env) : UNKNOWN;
}

/** Plain JSON-like data (no class instances such as property-test arbitraries, no cycles). */
function isPlainData(v: unknown, seen = new Set<object>()): boolean {
  if (v === null || typeof v !== "object") return typeof v !== "function" && typeof v !== "symbol";
  if (seen.has(v)) return false;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== Array.prototype && proto !== null) return false;
  seen.add(v);
  const ok = Object.values(v).every((x) => isPlainData(x, seen));
  seen.delete(v);
  return ok;
}

function evaluate(n: ts.Node, depth = 0, env: Env = new Map()): unknown {
  if (depth > 20) return UNKNOWN;
  if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return n.text;
  if (ts.isNumericLiteral(n)) return Number(n.text);
  if (ts.isPrefixUnaryExpression(n) && n.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(n.operand)) return -Number(n.operand.text);
  if (n.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (n.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (n.kind === ts.SyntaxKind.NullKeyword) return null;
  if (ts.isParenthesizedExpression(n) || ts.isAsExpression(n) || ts.isSatisfiesExpression(n) || ts.isNonNullExpression(n))
    return evaluate(n.expression, depth + 1, env);
  if (ts.isTemplateExpression(n)) {
    let s = n.head.text;
    for (const span of n.templateSpans) {
      const v = evaluate(span.expression, depth + 1, env);
      // `${base}/path`: a server's base URL known only at run time.
      const unknown = !s && span.literal.text.startsWith("/") ? LOOPBACK : "x";
      s += (typeof v === "string" || typeof v === "number" ? String(v) : unknown) + span.literal.text;
    }
    return s;
  }
  if (ts.isCallExpression(n) && ts.isIdentifier(n.expression)) {
    const args = n.arguments.map((a) => evaluate(a, depth + 1, env));
    const builder = builders.get(n.expression.text);
    if (builder && !args.includes(UNKNOWN)) {
      // A builder given partly unknown values (nested) may throw: its result is unknown then.
      try {
        const built = builder(...args);
        // A helper doing I/O (fetch, a server) is no fixture builder: its promise is dropped quietly.
        if (built && typeof (built as PromiseLike<unknown>).then === "function") {
          (built as Promise<unknown>).then(undefined, () => undefined);
          return UNKNOWN;
        }
        return isPlainData(built) ? built : UNKNOWN;
      } catch {
        return UNKNOWN;
      }
    }
    const fn = localFunction(n.expression.text, n);
    return fn ? callLocal(fn, args, depth) : UNKNOWN;
  }
  if (ts.isIdentifier(n)) {
    if (env.has(n.text)) return env.get(n.text);
    const init = declaredValue(n.text, n);
    return init ? evaluate(init, depth + 1, env) : UNKNOWN;
  }
  if (ts.isArrayLiteralExpression(n)) return n.elements.filter((e) => !ts.isSpreadElement(e)).map((e) => evaluate(e, depth + 1, env));
  if (ts.isObjectLiteralExpression(n)) {
    const out: Record<string, unknown> = {};
    for (const p of n.properties) {
      if (ts.isPropertyAssignment(p)) {
        const k = propName(p.name);
        if (k !== undefined) out[k] = evaluate(p.initializer, depth + 1, env);
      } else if (ts.isShorthandPropertyAssignment(p) && env.has(p.name.text)) {
        out[p.name.text] = env.get(p.name.text);
      } else if (ts.isShorthandPropertyAssignment(p)) {
        const init = declaredValue(p.name.text, p);
        out[p.name.text] = init ? evaluate(init, depth + 1, env) : UNKNOWN;
      } else if (ts.isSpreadAssignment(p)) {
        const v = evaluate(p.expression, depth + 1, env);
        if (v && typeof v === "object") Object.assign(out, v);
      }
    }
    return out;
  }
  return UNKNOWN;
}

/** An object literal with a `nodes: [ … ]` list, or a call to a fixture builder. */
function isCandidate(n: ts.Node): boolean {
  if (ts.isCallExpression(n)) return ts.isIdentifier(n.expression) && builders.has(n.expression.text);
  if (!ts.isObjectLiteralExpression(n)) return false;
  const nodes = n.properties.find((p) => ts.isPropertyAssignment(p) && propName(p.name) === "nodes") as ts.PropertyAssignment | undefined;
  return !!nodes && ts.isArrayLiteralExpression(nodes.initializer) && nodes.initializer.elements.length > 0;
}

/** The evaluated value as an automation document, when it is one (every node has an `integration.name` key). */
function asDocument(v: unknown): Record<string, unknown> | null {
  if (!v || typeof v !== "object") return null;
  const o = v as Record<string, unknown>;
  const doc = o.graph && typeof o.graph === "object" ? o : "nodes" in o ? { graph: o } : null;
  const nodes = (doc?.graph as { nodes?: unknown } | undefined)?.nodes;
  if (!Array.isArray(nodes) || !nodes.length) return null;
  return nodes.every((x) => x && typeof x === "object" && typeof (x as { key?: unknown }).key === "string" && /^\w+\.\w+/.test((x as { key: string }).key))
    ? doc
    : null;
}

/** Runtime-only values: connection ids become `$connection`, URLs a loopback address, other strings a placeholder. */
function settle(v: unknown, key?: string): unknown {
  if (v === UNKNOWN)
    return key === "connectionId"
      ? "$connection"
      : key && /url$/i.test(key)
        ? LOOPBACK
        : key && /^(id|name|key)$/.test(key)
          ? undefined
          : key === "secret"
            ? `corpus-secret-${++secrets}`
            : "corpus-value";
  if (Array.isArray(v)) return v.map((x) => settle(x)).filter((x) => x !== undefined);
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const s = settle(x, k);
      if (s !== undefined) out[k] = s;
    }
    return out;
  }
  return v;
}

/** Modules under `testing/` imported by a test file: their exported functions are called as builders. */
async function importBuilders(sf: ts.SourceFile, file: string): Promise<Builders> {
  const out: Builders = new Map();
  for (const st of sf.statements) {
    if (
      !ts.isImportDeclaration(st) ||
      !ts.isStringLiteral(st.moduleSpecifier) ||
      !st.importClause?.namedBindings ||
      !ts.isNamedImports(st.importClause.namedBindings)
    )
      continue;
    const spec = st.moduleSpecifier.text;
    if (!spec.startsWith(".") || !/(^|\/)testing\//.test(spec)) continue;
    const mod = (await import(path.resolve(path.dirname(file), spec))) as Record<string, unknown>;
    for (const el of st.importClause.namedBindings.elements) {
      const fn = mod[(el.propertyName ?? el.name).text];
      if (typeof fn === "function" && fn.length > 0 && fn.constructor.name !== "AsyncFunction") out.set(el.name.text, fn as (...args: unknown[]) => unknown);
    }
  }
  return out;
}

export async function harvestGraphs(root: string): Promise<HarvestedDocument[]> {
  const out: HarvestedDocument[] = [];
  for (const file of files(root)) {
    const text = fs.readFileSync(file, "utf8");
    if (!text.includes("nodes") && !text.includes("testing/")) continue;
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    builders = await importBuilders(sf, file);
    const visit = (n: ts.Node) => {
      if (isCandidate(n)) {
        const parent = n.parent;
        const docNode =
          ts.isObjectLiteralExpression(n) && ts.isPropertyAssignment(parent) && propName(parent.name) === "graph" && ts.isObjectLiteralExpression(parent.parent)
            ? parent.parent
            : n;
        const doc = asDocument(settle(evaluate(docNode)));
        if (doc) {
          out.push({ origin: `${path.relative(root, file)}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`, doc });
          return;
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out;
}
