/**
 * Specs → what apply writes: keys to ids (existing, or new ids for resources created in the same
 * bundle), connection names to ids, secret references to values (the request's `secrets`, else the
 * value stored for that field, else a value stored under the same name elsewhere in the
 * workspace). Every problem is collected with its path in the request body (`apps.2.graph…`).
 */
import type { AppSpec, Bundle, IntakeSpec, LineSpec } from "../../contracts/as-code";
import { isSecretRef, secretEnvName } from "../../contracts/as-code";
import type { AutomationDocument, DocumentProblem } from "../../contracts/automations";
import { configValueAt, GraphSchema, type GraphNode } from "../../contracts/graph";
import type { FieldProblem } from "../../errors";
import type { SecretBox } from "../../crypto/secret-box";
import { newId } from "../../ids";
import { isSealed, openConfigSecrets, SECRET_PLACEHOLDER } from "../automations/node-secrets";
import { errorsOf, validateDocument, type ConnectionFacts } from "../automations/validate-automation";
import { getPath, secretPathsFor, setPath, unknownInputs } from "../../as-code/units";
import { specPath } from "../../as-code/validate-files";
import { intakeSecretName, nodeSecretName, type WorkspaceState } from "./workspace-state";

export interface ResolvedApp {
  index: number;
  spec: AppSpec;
  id: string;
  existing: WorkspaceState["rows"]["automations"][number] | undefined;
  doc: AutomationDocument & { key: string };
  secretRefs: Record<string, string>;
  /** Readable paths of secret fields whose value changes. */
  secretChanges: string[];
  /** Problems of severity warning (stored with the version; they do not block). */
  warnings: DocumentProblem[];
}
export interface ResolvedLine {
  index: number;
  spec: LineSpec;
  id: string;
  existing: WorkspaceState["rows"]["lines"][number] | undefined;
  steps: Array<{ name: string; appId: string }>;
}
export interface ResolvedIntake {
  index: number;
  spec: IntakeSpec;
  existing: WorkspaceState["rows"]["intakes"][number] | undefined;
  lineId: string;
  /** New plain value, when it changes (or the intake is new). */
  secret?: string;
  secretName: string;
}

export interface Resolved {
  apps: ResolvedApp[];
  lines: ResolvedLine[];
  intakes: ResolvedIntake[];
  problems: FieldProblem[];
}

function byKey<T extends { id: string }>(rows: T[], keys: Map<string, string>): Map<string, T> {
  return new Map(rows.map((r) => [keys.get(r.id)!, r]));
}

/**
 * What a node keeps from its stored version that files do not carry: picker labels whose value is
 * still the config's (the editor shows names, not ids), and pinned test output. An apply replaced
 * the graph and dropped both.
 */
function editorOnly(prev: GraphNode | undefined, config: Record<string, unknown>): Pick<GraphNode, "labels" | "pinned"> {
  if (!prev) return {};
  const labels = Object.fromEntries(Object.entries(prev.labels ?? {}).filter(([path, l]) => configValueAt(config, path) === l.value));
  return { ...(Object.keys(labels).length ? { labels } : {}), ...(prev.pinned ? { pinned: prev.pinned } : {}) };
}

function duplicates(kind: string, specs: Array<{ key: string }>, problems: FieldProblem[]) {
  const seen = new Set<string>();
  specs.forEach((s, i) => {
    if (seen.has(s.key)) problems.push({ path: `${kind}.${i}.key`, message: `Another entry has the key "${s.key}"` });
    seen.add(s.key);
  });
}

function openSealed(box: SecretBox, sealed: string | undefined): string | undefined {
  return sealed ? (openConfigSecrets(box, sealed) as string) : undefined;
}

export function resolveBundle(state: WorkspaceState, bundle: Bundle, secrets: Record<string, string>, box: SecretBox): Resolved {
  const problems: FieldProblem[] = [];
  duplicates("apps", bundle.apps, problems);
  duplicates("lines", bundle.lines, problems);
  duplicates("intakes", bundle.intakes, problems);
  const apps = byKey(state.rows.automations, state.appKey);
  const lines = byKey(state.rows.lines, state.lineKey);
  const intakes = byKey(state.rows.intakes, state.intakeKey);
  const appId = new Map(bundle.apps.map((s) => [s.key, apps.get(s.key)?.id ?? newId("aut")]));
  const lineId = new Map(bundle.lines.map((s) => [s.key, lines.get(s.key)?.id ?? newId("lin")]));
  for (const [key, row] of apps) if (!appId.has(key)) appId.set(key, row.id);
  for (const [key, row] of lines) if (!lineId.has(key)) lineId.set(key, row.id);
  const conns = new Map<string, string[]>();
  for (const c of state.rows.connections) conns.set(c.name, [...(conns.get(c.name) ?? []), c.id]);
  const newIds = new Set(appId.values());
  const connections = new Map<string, ConnectionFacts>(
    state.rows.connections.map((c) => [c.id, { id: c.id, integration: c.integration, config: c.config, state: c.state }]),
  );
  const automationExists = (id: string) => newIds.has(id);
  const secretValue = (name: string, at: string, kept: string | undefined): string | undefined => {
    if (secrets[name] !== undefined) return secrets[name];
    const stored = kept ?? state.storedSecretNamed(name);
    if (stored) return stored;
    problems.push({ path: at, message: `Secret "${name}" has no value in this workspace: set ${secretEnvName(name)} when applying` });
    return undefined;
  };

  const resolvedApps = bundle.apps.map((spec, index): ResolvedApp => {
    const at = `apps.${index}`;
    const existing = apps.get(spec.key);
    const before = existing ? GraphSchema.parse(existing.graph) : undefined;
    const secretRefs: Record<string, string> = {};
    /** Document path of a secret field → the name of the value given with the request (CONVEYOR_SECRET_<NAME>). */
    const givenSecrets = new Map<string, string>();
    const secretChanges: string[] = [];
    const nodes = spec.graph.nodes.map((node, j) => {
      const nodeAt = `${at}.graph.nodes.${j}`;
      let connectionId: string | undefined;
      if (node.connection) {
        const found = conns.get(node.connection) ?? [];
        if (!found.length)
          problems.push({ path: `${nodeAt}.connection`, nodeId: node.id, message: `No connection named "${node.connection}" in this workspace` });
        else if (found.length > 1)
          problems.push({
            path: `${nodeAt}.connection`,
            nodeId: node.id,
            message: `${found.length} connections are named "${node.connection}"; rename one so the name is unique`,
          });
        else connectionId = found[0];
      }
      for (const k of unknownInputs(node.key, node.config) ?? [])
        problems.push({ path: `${nodeAt}.config.${k}`, nodeId: node.id, message: `Unknown input "${k}" for ${node.key}` });
      let config = node.config as Record<string, unknown>;
      for (const p of secretPathsFor(node.key)) {
        const ref = getPath(config, p);
        if (ref === undefined) continue;
        if (!isSecretRef(ref)) {
          problems.push({ path: `${nodeAt}.config.${p}`, nodeId: node.id, message: "Secret fields take a reference { secret: <name> }, never the value" });
          continue;
        }
        const prevNode = before?.nodes.find((n) => n.id === node.id && n.key === node.key);
        const prevSealed = prevNode ? getPath(prevNode.config, p) : undefined;
        const sameName = existing && prevNode && isSealed(prevSealed) && nodeSecretName(existing, spec.key, prevNode, p) === ref.secret;
        const value = secretValue(ref.secret, `${nodeAt}.config.${p}`, sameName ? (prevSealed as string) : undefined);
        if (value === undefined) {
          // Reported above by name; the validator must not also call the reference "expected string, received object".
          config = setPath(config, p, SECRET_PLACEHOLDER);
          continue;
        }
        secretRefs[`${node.id}:${p}`] = ref.secret;
        if (secrets[ref.secret] !== undefined) givenSecrets.set(`graph.nodes.${j}.config.${p}`, ref.secret);
        const plainBefore = isSealed(prevSealed) ? openSealed(box, prevSealed) : undefined;
        const plainAfter = isSealed(value) ? openSealed(box, value) : value;
        if (existing && prevNode && plainBefore !== plainAfter) secretChanges.push(`graph.nodes[${node.name}].config.${p}`);
        config = setPath(config, p, value);
      }
      return {
        id: node.id,
        name: node.name,
        key: node.key,
        connectionId: connectionId ?? (node.connection ? `missing:${node.connection}` : undefined),
        config,
        position: node.position,
        notes: node.notes,
        ...(node.disabled ? { disabled: true } : {}),
        ...editorOnly(
          before?.nodes.find((n) => n.id === node.id && n.key === node.key),
          config,
        ),
      };
    });
    const id = appId.get(spec.key)!;
    const handler = spec.errorHandler ? appId.get(spec.errorHandler) : null;
    if (spec.errorHandler && !handler)
      problems.push({ path: `${at}.errorHandler`, message: `No automation has the key "${spec.errorHandler}" (in the bundle or the workspace)` });
    const doc = {
      key: spec.key,
      name: spec.name,
      description: spec.description ?? "",
      enabled: spec.enabled,
      concurrency: spec.concurrency,
      errorHandlerId: handler ?? null,
      graph: { nodes, edges: spec.graph.edges, ...(spec.graph.notes ? { notes: spec.graph.notes } : {}) },
    };
    // Errors block the apply; warnings are stored with the version, as for a save in the editor.
    const found = validateDocument(doc, { connections, automationExists, selfId: id });
    for (const p of errorsOf(found)) {
      if (p.path.endsWith("connectionId") && /does not exist/.test(p.message)) continue; // reported above by name
      const path = `${at}.${specPath(p.path).join(".")}`;
      // An unknown input is found above too (also when the rest of the config fails its schema): say it once.
      if (problems.some((q) => q.path === path && q.message === p.message)) continue;
      // A given secret value that fails the field's rule: the file only holds its name, so name where the value came from.
      const given = givenSecrets.get(p.path);
      const message = given ? `The value given for secret "${given}" (${secretEnvName(given)}): ${p.message}` : p.message;
      problems.push({ path, ...(p.nodeId ? { nodeId: p.nodeId } : {}), message });
    }
    return { index, spec, id, existing, doc, secretRefs, secretChanges, warnings: found.filter((p) => p.severity === "warning") };
  });

  const resolvedLines = bundle.lines.map((spec, index): ResolvedLine => {
    const steps = spec.steps.map((s, j) => {
      const id = appId.get(s.automation);
      if (!id)
        problems.push({
          path: `lines.${index}.steps.${j}.automation`,
          message: `No automation has the key "${s.automation}" (in the bundle or the workspace)`,
        });
      return { name: s.name, appId: id ?? "" };
    });
    return { index, spec, id: lineId.get(spec.key)!, existing: lines.get(spec.key), steps };
  });

  const resolvedIntakes = bundle.intakes.map((spec, index): ResolvedIntake => {
    const existing = intakes.get(spec.key);
    const line = lineId.get(spec.line);
    if (!line) problems.push({ path: `intakes.${index}.line`, message: `No line has the key "${spec.line}" (in the bundle or the workspace)` });
    const name = spec.secret.secret;
    const kept = existing?.secretEnc && intakeSecretName(existing, spec.key) === name ? `secret:${existing.secretEnc}` : undefined;
    const value = secretValue(name, `intakes.${index}.secret`, kept);
    const plain = value === undefined ? undefined : isSealed(value) ? openSealed(box, value) : value;
    const before = existing?.secretEnc ? box.decrypt(existing.secretEnc) : undefined;
    return { index, spec, existing, lineId: line ?? "", secret: plain !== before ? plain : undefined, secretName: name };
  });

  return { apps: resolvedApps, lines: resolvedLines, intakes: resolvedIntakes, problems };
}
