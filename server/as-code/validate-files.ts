/**
 * `conveyor validate`, fully offline: parses every spec file with positions, checks its shape, then
 * runs the same document validation as the editor and the API (validateDocument: unknown component
 * keys, inputs, expressions, references, graph shape) with connections assumed to exist (their
 * names are checked by plan/apply against the workspace). Each problem's path is mapped back to the
 * YAML node it concerns. The result also carries the bundle, ready for plan/apply.
 */
import { z } from "zod";
import {
  AppSpecSchema,
  FILES_API_VERSION,
  IntakeSpecSchema,
  isSecretRef,
  LineSpecSchema,
  MAX_BUNDLE_RESOURCES,
  secretEnvName,
  type AppSpec,
  type Bundle,
  type IntakeSpec,
  type LineSpec,
  type ResourceKind,
} from "../contracts/as-code";
import type { DocumentProblem } from "../contracts/automations";
import { issueMessage } from "../errors";
import { errorsOf, validateDocument } from "../services/automations/validate-automation";
import { SECRET_PLACEHOLDER } from "../services/automations/node-secrets";
import { parseYamlFile, type FileProblem, type ParsedFile } from "./yaml-files";
import { getPath, secretPathsFor, setPath, unknownInputs } from "./units";

const fileSchema = <T extends z.ZodObject>(kind: ResourceKind, spec: T) =>
  spec.extend({ $schema: z.string().optional(), apiVersion: z.literal(FILES_API_VERSION).optional(), kind: z.literal(kind) });

/** What is wrong with a file's `apiVersion` (absent: a file from before it existed, read as this format). */
function apiVersionProblem(v: unknown): string | null {
  if (v === undefined || v === FILES_API_VERSION) return null;
  const newer = typeof v === "string" ? /^conveyor\/v(\d+)$/.exec(v) : null;
  if (newer && Number(newer[1]) > Number(FILES_API_VERSION.slice("conveyor/v".length)))
    return `This file is for a newer Conveyor (apiVersion ${v}); this one reads ${FILES_API_VERSION}. Upgrade Conveyor, or export the files again from this one`;
  return `apiVersion must be ${FILES_API_VERSION} (found ${JSON.stringify(v)})`;
}
const FILE_SCHEMAS = {
  automation: fileSchema("automation", AppSpecSchema),
  line: fileSchema("line", LineSpecSchema),
  intake: fileSchema("intake", IntakeSpecSchema),
} as const;

export interface SpecFile {
  kind: ResourceKind;
  key: string;
  parsed: ParsedFile;
}

export interface ValidatedFiles {
  problems: FileProblem[];
  bundle: Bundle;
  /** `automation/<key>` → the parsed file (to map server problems back to lines). */
  byResource: Map<string, SpecFile>;
}

const CONN = "connection:";

/** Automation spec → the automation document the validator takes (connections and secrets by placeholder). */
function offlineDocument(spec: AppSpec) {
  return {
    name: spec.name,
    description: spec.description,
    enabled: spec.enabled,
    concurrency: spec.concurrency,
    errorHandlerId: spec.errorHandler ? `key:${spec.errorHandler}` : null,
    graph: {
      ...spec.graph,
      nodes: spec.graph.nodes.map(({ connection, ...node }) => {
        let config = node.config as Record<string, unknown>;
        for (const p of secretPathsFor(node.key)) if (isSecretRef(getPath(config, p))) config = setPath(config, p, SECRET_PLACEHOLDER);
        return { ...node, config, connectionId: connection ? CONN + connection : undefined };
      }),
    },
  };
}

/** Document problem path → file path (`graph.nodes.2.connectionId` → `graph.nodes.2.connection`). */
export function specPath(p: string): Array<string | number> {
  return p
    .split(".")
    .filter(Boolean)
    .map((s) => (s === "connectionId" ? "connection" : s === "errorHandlerId" ? "errorHandler" : /^\d+$/.test(s) ? Number(s) : s));
}

export function problemAt(file: ParsedFile, path: Array<string | number>, message: string, preferKey = false): FileProblem {
  const at = file.positionOf(path, preferKey);
  // A field that is not in the file is reported where it belongs, by name.
  const prefix = at.missing.length && !message.startsWith(`${at.missing.join(".")}:`) ? `${at.missing.join(".")}: ` : "";
  return { file: file.file, line: at.line, column: at.column, message: prefix + message, path: path.join(".") };
}

function zodFileProblems(file: ParsedFile, error: z.ZodError): FileProblem[] {
  return error.issues.map((i) => {
    const path = i.path as Array<string | number>;
    if (i.code === "unrecognized_keys") return problemAt(file, [...path, i.keys[0]!], `Unknown field "${i.keys.join('", "')}"`, true);
    return problemAt(file, path, issueMessage(i));
  });
}

function secretProblems(file: ParsedFile, spec: AppSpec): FileProblem[] {
  const out: FileProblem[] = [];
  spec.graph.nodes.forEach((node, i) => {
    for (const p of secretPathsFor(node.key)) {
      const v = getPath(node.config, p);
      if (typeof v === "string" && v) {
        const name = `${spec.key}-${node.name}`.toLowerCase();
        out.push(
          problemAt(
            file,
            ["graph", "nodes", i, "config", ...p.split(".")],
            `A secret value must not be in a file: write { secret: ${name} } and give the value in ${secretEnvName(name)} when applying`,
          ),
        );
      }
    }
  });
  return out;
}

/** Validates spec files (`file` is the path shown in problems). */
export function validateFiles(files: Array<{ file: string; text: string }>): ValidatedFiles {
  const problems: FileProblem[] = [];
  // Kinds of the files that could not be read ("any": a YAML error hides even the kind).
  const unreadable = new Set<ResourceKind | "any">();
  const specs: SpecFile[] = [];
  const bundle: Bundle = { apps: [], lines: [], intakes: [] };
  const byResource = new Map<string, SpecFile>();
  for (const { file, text } of files) {
    const parsed = parseYamlFile(file, text);
    problems.push(...parsed.problems);
    if (parsed.problems.length) {
      unreadable.add("any");
      continue;
    }
    const value = parsed.value as Record<string, unknown> | null;
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      problems.push(problemAt(parsed, [], "Expected a mapping with kind: automation, line or intake"));
      continue;
    }
    const versionProblem = apiVersionProblem(value.apiVersion);
    if (versionProblem) {
      problems.push(problemAt(parsed, ["apiVersion"], versionProblem));
      unreadable.add(typeof value.kind === "string" && Object.hasOwn(FILE_SCHEMAS, value.kind) ? (value.kind as ResourceKind) : "any");
      continue;
    }
    const kind = value.kind as ResourceKind;
    if (typeof kind !== "string" || !Object.hasOwn(FILE_SCHEMAS, kind)) {
      const message =
        value.kind === undefined
          ? "kind: Required (automation, line or intake)"
          : `kind must be automation, line or intake (found ${JSON.stringify(value.kind)})`;
      problems.push(problemAt(parsed, ["kind"], message));
      continue;
    }
    const r = FILE_SCHEMAS[kind].safeParse(value);
    if (!r.success) {
      problems.push(...zodFileProblems(parsed, r.error));
      unreadable.add(kind);
      continue;
    }
    const { $schema: _s, apiVersion: _v, kind: _k, ...spec } = r.data as Record<string, unknown> & { key: string };
    const id = `${kind}/${spec.key}`;
    const dup = byResource.get(id);
    if (dup) {
      problems.push(problemAt(parsed, ["key"], `Another ${kind} file (${dup.parsed.file}) has the key "${spec.key}"`));
      continue;
    }
    const entry = { kind, key: spec.key, parsed };
    byResource.set(id, entry);
    specs.push(entry);
    if (kind === "automation") bundle.apps.push(spec as AppSpec);
    else if (kind === "line") bundle.lines.push(spec as unknown as LineSpec);
    else bundle.intakes.push(spec as unknown as IntakeSpec);
  }
  // The server takes at most MAX_BUNDLE_RESOURCES of each kind per apply: say so offline, on the first file past it.
  for (const [kind, list] of [
    ["automation", bundle.apps],
    ["line", bundle.lines],
    ["intake", bundle.intakes],
  ] as const) {
    const past = list[MAX_BUNDLE_RESOURCES];
    if (past) {
      const file = byResource.get(`${kind}/${past.key}`)!.parsed;
      problems.push(problemAt(file, [], `${list.length} ${kind} files: one apply takes at most ${MAX_BUNDLE_RESOURCES}`));
    }
  }
  const has = (kind: ResourceKind, key: string) => byResource.has(`${kind}/${key}`);
  // A key may be defined by a file that could not be read: say so, or fixing that file looks like fixing two problems.
  const noFile = (kind: ResourceKind, key: string) =>
    `No ${kind} file has the key "${key}"${unreadable.has(kind) || unreadable.has("any") ? " (unless it is in a file with an error above)" : ""}`;
  // Offline: connections are not known (no existence checks); error handlers are other files' keys.
  const automationExists = (id: string) => has("automation", id.replace(/^key:/, ""));
  for (const spec of bundle.apps) {
    const file = byResource.get(`automation/${spec.key}`)!.parsed;
    problems.push(...secretProblems(file, spec));
    spec.graph.nodes.forEach((node, i) => {
      for (const k of unknownInputs(node.key, node.config) ?? [])
        problems.push(problemAt(file, ["graph", "nodes", i, "config", k], `Unknown input "${k}" for ${node.key}`, true));
    });
    // Errors only: warnings (e.g. a reference the checker cannot prove) do not fail a build, as they do not block a save.
    const found: DocumentProblem[] = errorsOf(validateDocument(offlineDocument(spec), { automationExists, selfId: `key:${spec.key}` }));
    for (const p of found) {
      // An unknown input is found above too (also when the rest of the config fails its schema): say it once.
      if (problems.some((q) => q.file === file.file && q.path === specPath(p.path).join(".") && q.message === p.message)) continue;
      const message = p.path === "errorHandlerId" && /does not exist/.test(p.message) ? noFile("automation", spec.errorHandler!) : p.message;
      problems.push(problemAt(file, specPath(p.path), message));
    }
  }
  for (const line of bundle.lines) {
    const file = byResource.get(`line/${line.key}`)!.parsed;
    line.steps.forEach((s, i) => {
      if (!has("automation", s.automation)) problems.push(problemAt(file, ["steps", i, "automation"], noFile("automation", s.automation)));
    });
  }
  for (const intake of bundle.intakes) {
    const file = byResource.get(`intake/${intake.key}`)!.parsed;
    if (!has("line", intake.line)) problems.push(problemAt(file, ["line"], noFile("line", intake.line)));
  }
  problems.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
  return { problems, bundle, byResource };
}
