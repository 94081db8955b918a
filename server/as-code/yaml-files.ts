/**
 * Spec files as YAML (eemeli/yaml): writing in one stable format (block style, no line folding,
 * `{ x, y }` positions, edges and secret references in flow style), and reading with source
 * positions so that every problem can be reported as `file:line:column`.
 */
import { Document, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Node as YamlNode } from "yaml";
import { FILES_API_VERSION, type ResourceKind } from "../contracts/as-code";

export const FOLDERS: Record<ResourceKind, string> = { automation: "automations", line: "lines", intake: "intakes" };
export const SCHEMA_FILE = "conveyor.schema.json";

export interface FileProblem {
  file: string;
  line: number;
  column: number;
  message: string;
  /** Dotted path in the file's document, when known. */
  path?: string;
}

const FLOW_KEYS = new Set(["position", "size"]);

/** The file text of one resource: `$schema`, `apiVersion`, `kind`, then the (canonical) spec. */
export function toYaml(kind: ResourceKind, spec: object, schemaRef = `../${SCHEMA_FILE}`): string {
  const doc = new Document({ $schema: schemaRef, apiVersion: FILES_API_VERSION, kind, ...spec });
  visit(doc, {
    Map(_, node, path) {
      const parent = path[path.length - 1];
      const keyName = isPair(parent) && isScalar(parent.key) ? String(parent.key.value) : undefined;
      const isSecretRef = node.items.length === 1 && isScalar(node.items[0]!.key) && node.items[0]!.key.value === "secret";
      const inEdges = path.some((p) => isPair(p) && isScalar(p.key) && p.key.value === "edges");
      if ((keyName && FLOW_KEYS.has(keyName)) || isSecretRef || (inEdges && isSeq(parent))) node.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0, indent: 2, indentSeq: true });
}

export interface ParsedFile {
  file: string;
  value: unknown;
  problems: FileProblem[];
  /** Position of the deepest node that exists along `path` (`preferKey`: the key of the last pair). */
  positionOf(path: Array<string | number>, preferKey?: boolean): { line: number; column: number; missing: Array<string | number> };
}

/**
 * The file's YAML errors as problems: the first error only (a tab or a bad indent makes the parser
 * report ten more that follow from it), placed where the user must look: an unclosed quote at the
 * quote that opens it (the parser places it at the end of the file). Warnings when there is no error.
 */
function yamlProblems(doc: Document.Parsed, file: string, pos: (offset: number | undefined) => { line: number; column: number }): FileProblem[] {
  const found = doc.errors.length ? doc.errors : doc.warnings;
  const shown = doc.errors.length ? found.slice(0, 1) : found;
  return shown.map((e) => {
    let at = e.linePos?.[0] ? { line: e.linePos[0].line, column: e.linePos[0].col } : { line: 1, column: 1 };
    let message = e.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    if (e.code === "MULTIPLE_DOCS") message = "One resource per file: this file holds more than one YAML document (a --- line); put each in a file of its own";
    if (e.code === "MISSING_CHAR" && /quote/.test(message)) {
      let opening: { at: number; quote: string } | undefined;
      visit(doc, {
        Scalar(_, n) {
          if ((n.type === "QUOTE_DOUBLE" || n.type === "QUOTE_SINGLE") && n.range && n.range[0] < e.pos[0] && n.range[1] >= e.pos[0])
            opening = { at: n.range[0], quote: n.type === "QUOTE_DOUBLE" ? '"' : "'" };
        },
      });
      if (opening) {
        at = pos(opening.at);
        message = `The string quoted with ${opening.quote} that starts here is never closed`;
      }
    }
    const more = doc.errors.length - shown.length;
    return {
      file,
      ...at,
      message: `YAML: ${message}${more > 0 ? ` (and ${more} more YAML error${more === 1 ? "" : "s"} after it, often caused by this one)` : ""}`,
    };
  });
}

export function parseYamlFile(file: string, text: string): ParsedFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const pos = (offset: number | undefined) => {
    const p = lineCounter.linePos(offset ?? 0);
    return { line: p.line, column: p.col };
  };
  const problems: FileProblem[] = yamlProblems(doc, file, pos);
  let value: unknown = null;
  if (!doc.errors.length) {
    try {
      value = doc.toJS({ maxAliasCount: 1000 });
    } catch (e) {
      problems.push({ file, line: 1, column: 1, message: `YAML: ${(e as Error).message}` });
    }
  }
  const positionOf = (path: Array<string | number>, preferKey = false) => {
    let node: unknown = doc.contents;
    let at = pos((doc.contents as YamlNode | null)?.range?.[0]);
    let i = 0;
    for (; i < path.length; i++) {
      const seg = path[i]!;
      const last = i === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
        if (!pair) break;
        const keyAt = pos((pair.key as YamlNode).range?.[0]);
        const valueRange = (pair.value as YamlNode | null)?.range;
        at = last && preferKey ? keyAt : valueRange ? pos(valueRange[0]) : keyAt;
        node = pair.value;
      } else if (isSeq(node) && /^\d+$/.test(String(seg))) {
        const item = node.items[Number(seg)] as YamlNode | undefined;
        if (!item) break;
        at = pos(item.range?.[0]);
        node = item;
      } else break;
    }
    return { ...at, missing: path.slice(i) };
  };
  return { file, value, problems, positionOf };
}

/** `file:line:column message` (or a GitHub Actions annotation). */
export function formatProblem(p: FileProblem, format: "text" | "github" = "text"): string {
  if (format === "github")
    return `::error file=${p.file},line=${p.line},col=${p.column}::${p.message.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A")}`;
  return `${p.file}:${p.line}:${p.column} ${p.message}`;
}
