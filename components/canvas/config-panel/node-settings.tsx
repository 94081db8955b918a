"use client";
/** Settings tab: node name (unique; renaming rewrites references), connection, and the generated config form. */
import { Plus } from "lucide-react";
import { useMemo, useRef, useState } from "react";
import { useCanvasStore } from "../canvas-store";
import { isWarning, type FlowNode, type FlowNodeData, type PaletteUnit } from "../types";
import { FieldShell } from "./fields/field-shell";
import { FormEnvProvider, type FormEnv, type ResourcePage } from "./form-context";
import { SchemaForm } from "./schema-form";
import { configPath } from "./config-path";
import { UnknownSettings } from "./unknown-settings";
import { useExpressionEnv, type SampleData } from "./use-expression-env";

export interface ConnectionSummary {
  id: string;
  name: string;
  integration: string;
  status: string;
}

export interface NodeSettingsProps {
  node: FlowNode & { data: FlowNodeData };
  unit?: PaletteUnit;
  connections: ConnectionSummary[];
  onNewConnection: (integration: string) => void;
  loadResources: (args: { connectionId: string; type: string; config: Record<string, unknown>; search?: string; cursor?: string }) => Promise<ResourcePage>;
  lastRun?: SampleData;
  readOnly?: boolean;
}

const workspaceOf = () => (typeof window === "undefined" ? "" : (window.location.pathname.split("/")[2] ?? ""));

export function NodeSettings({ node, unit, connections, onNewConnection, loadResources, lastRun, readOnly }: NodeSettingsProps) {
  const renameNode = useCanvasStore((s) => s.renameNode);
  const updateNodeConfig = useCanvasStore((s) => s.updateNodeConfig);
  const setConnection = useCanvasStore((s) => s.setConnection);
  const allProblems = useCanvasStore((s) => s.problems);
  // A draft only while the user edits; otherwise the field follows the store (undo, paste, rename).
  const [draft, setDraft] = useState<string | null>(null);
  const [nameError, setNameError] = useState<string | null>(null);
  const name = draft ?? node.data.name;
  const setName = (v: string) => setDraft(v);

  const nodeProblems = useMemo(() => allProblems.filter((p) => p.nodeId === node.id), [allProblems, node.id]);
  const [fieldProblems, fieldWarnings] = useMemo(() => {
    const errors: Record<string, string> = {};
    const warnings: Record<string, string> = {};
    for (const p of nodeProblems) {
      const cp = configPath(p.path);
      // zod's wording for a missing value is not for people.
      if (cp) (isWarning(p) ? warnings : errors)[cp] ??= /received undefined$|^Required$/.test(p.message) ? "Required." : p.message;
    }
    return [errors, warnings];
  }, [nodeProblems]);
  const general = nodeProblems.filter((p) => !isWarning(p) && (configPath(p.path) === "" || (configPath(p.path) === null && !/connection|name/i.test(p.path))));
  // A picker reports the label of its choice just before the change itself: both land in one undo step.
  const pendingLabels = useRef<Record<string, { value: string; label: string } | null>>({});
  const connectionProblem = nodeProblems.find((p) => /connection/i.test(p.path))?.message;
  const nameProblem = nodeProblems.find((p) => /(^|\.)name$/.test(p.path))?.message;

  const expr = useExpressionEnv(node.id, lastRun);
  const integration = unit?.integration.key;
  const options = connections.filter((c) => c.integration === integration);
  const connectionId = node.data.connectionId ?? "";
  const chosen = options.find((c) => c.id === connectionId);
  const env: FormEnv = {
    idPrefix: `cfg-${node.id}`,
    config: node.data.config,
    problems: fieldProblems,
    warnings: fieldWarnings,
    labels: node.data.labels,
    setLabel: (path, entry) => {
      pendingLabels.current[path] = entry;
    },
    expressionPaths: expr.paths,
    sample: expr.sample,
    sampleSource: expr.sampleSource,
    readOnly,
    loadResources: connectionId ? (args) => loadResources({ ...args, connectionId }) : async () => ({ options: [] }),
  };

  const commitName = () => {
    if (name === node.data.name) {
      setDraft(null);
      return setNameError(null);
    }
    const r = renameNode(node.id, name);
    setNameError(r.ok ? null : (r.reason ?? "Invalid name."));
    if (r.ok) setDraft(null);
  };

  return (
    <div className="space-y-5">
      {general.length > 0 && (
        <ul role="alert" className="space-y-1 rounded-md border border-red-200 bg-red-50 p-2.5 text-xs text-danger" data-testid="node-general-problems">
          {general.map((p, i) => (
            <li key={i}>{p.message}</li>
          ))}
        </ul>
      )}
      <FieldShell
        id={`name-${node.id}`}
        path="__name"
        label="Name"
        help="Unique in this automation; expressions refer to it as $steps.<name>."
        error={nameError ?? nameProblem}
      >
        <input
          id={`name-${node.id}`}
          data-testid="node-name-input"
          className="input font-mono"
          value={name}
          disabled={readOnly}
          aria-invalid={!!(nameError ?? nameProblem) || undefined}
          onChange={(e) => setName(e.target.value)}
          onBlur={commitName}
          onKeyDown={(e) => e.key === "Enter" && commitName()}
        />
      </FieldShell>
      {unit?.needsConnection && (
        <FieldShell
          id={`conn-${node.id}`}
          path="__connection"
          label="Connection"
          required
          error={connectionProblem}
          help={`The ${unit.integration.title} account this step uses.`}
        >
          <div className="flex gap-1.5">
            <select
              id={`conn-${node.id}`}
              data-testid="node-connection-select"
              className="input"
              value={connectionId}
              disabled={readOnly}
              aria-invalid={!!connectionProblem || undefined}
              onChange={(e) => setConnection(node.id, e.target.value || null)}
            >
              <option value="">Choose a connection…</option>
              {options.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                  {c.status !== "ready" ? ` (${c.status.replace(/_/g, " ")})` : ""}
                </option>
              ))}
            </select>
            <button type="button" className="btn btn-sm shrink-0" onClick={() => onNewConnection(integration!)} disabled={readOnly}>
              <Plus size={13} aria-hidden /> New
            </button>
          </div>
          {chosen && chosen.status !== "ready" && (
            <p
              className="mt-1.5 rounded-md border border-amber-200 bg-amber-50 px-2.5 py-1.5 text-xs text-amber-900"
              role="status"
              data-testid="connection-warning"
            >
              This connection is {chosen.status.replace(/_/g, " ")}.{" "}
              <a className="font-medium underline" href={`/w/${workspaceOf()}/connections`} target="_blank" rel="noreferrer">
                {chosen.status === "needs_reconnect" || chosen.status === "needs_authorization" ? "Reconnect it" : "Check it"}
              </a>{" "}
              on the Connections page.
            </p>
          )}
        </FieldShell>
      )}
      {unit && <UnknownSettings nodeId={node.id} config={node.data.config} problems={nodeProblems} readOnly={readOnly} />}
      {unit ? (
        <FormEnvProvider value={env}>
          <SchemaForm
            key={node.id}
            schema={unit.config}
            value={node.data.config}
            onChange={(patch) => {
              const labels = pendingLabels.current;
              pendingLabels.current = {};
              updateNodeConfig(node.id, patch, labels);
            }}
          />
        </FormEnvProvider>
      ) : (
        <p className="text-sm text-danger">Unknown key {node.data.key}: remove this node or install its integration.</p>
      )}
    </div>
  );
}
