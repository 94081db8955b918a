/**
 * A workspace as specs: its automations, lines and webhook intakes with their (effective) keys,
 * connection names, and secret fields as references. Used by export, and by plan/apply as the
 * "before" side. Database reads are kept in `loadWorkspaceRows`.
 */
import type { Store } from "@/db/store";
import type { AutomationRow, IntakeRow, LineRow } from "@/db/types";
import type { AppSpec, IntakeSpec, LineSpec } from "../../contracts/as-code";
import { GraphSchema } from "../../contracts/graph";
import { isSealed } from "../automations/node-secrets";
import { getPath, secretPathsFor, setPath } from "../../as-code/units";
import { effectiveKeys } from "./keys";
import { intakeSignatureSettings } from "../webhooks/task-intake-auth";

export interface WorkspaceRows {
  automations: AutomationRow[];
  lines: LineRow[];
  intakes: IntakeRow[];
  /** Non-secret settings only (validators read e.g. the tracker's ops flag). */
  connections: Array<{ id: string; name: string; integration: string; config: Record<string, unknown>; state: Record<string, unknown> }>;
}

export async function loadWorkspaceRows(s: Store, workspaceId: string): Promise<WorkspaceRows> {
  const [automations, lines, intakes, connections] = await Promise.all([
    s.automations.allOf(workspaceId),
    s.lines.allOf(workspaceId),
    s.intakes.webhooksOf(workspaceId),
    s.connections.list(workspaceId),
  ]);
  return {
    automations,
    lines,
    intakes,
    connections: connections.map((c) => ({ id: c.id, name: c.name, integration: c.integration, config: c.config ?? {}, state: c.state ?? {} })),
  };
}

/** The secret name a node field is shown under: the one it was applied with, else `<automation key>-<node name>[-<field>]`. */
export function nodeSecretName(row: Pick<AutomationRow, "source">, automationKey: string, node: { id: string; name: string }, path: string): string {
  return (
    row.source?.secretRefs?.[`${node.id}:${path}`] ?? `${automationKey}-${node.name}${path === "secret" ? "" : `-${path.replace(/\./g, "-")}`}`.toLowerCase()
  );
}

export function intakeSecretName(row: Pick<IntakeRow, "source">, intakeKey: string): string {
  return row.source?.secretRefs?.secret ?? `intake-${intakeKey}`;
}

export class WorkspaceState {
  readonly appKey: Map<string, string>;
  readonly lineKey: Map<string, string>;
  readonly intakeKey: Map<string, string>;
  readonly connectionName: Map<string, string>;

  constructor(readonly rows: WorkspaceRows) {
    this.appKey = effectiveKeys(rows.automations, "automation");
    this.lineKey = effectiveKeys(rows.lines, "line");
    this.intakeKey = effectiveKeys(rows.intakes, "intake");
    this.connectionName = new Map(rows.connections.map((c) => [c.id, c.name]));
  }

  appSpec(row: AutomationRow): AppSpec {
    const key = this.appKey.get(row.id)!;
    const graph = GraphSchema.parse(row.graph);
    return {
      key,
      name: row.name,
      description: row.description || undefined,
      enabled: row.enabled,
      concurrency: row.concurrency,
      errorHandler: row.errorHandlerId ? this.appKey.get(row.errorHandlerId) : undefined,
      graph: {
        nodes: graph.nodes.map((node) => {
          let config = node.config as Record<string, unknown>;
          for (const p of secretPathsFor(node.key)) {
            if (isSealed(getPath(config, p))) config = setPath(config, p, { secret: nodeSecretName(row, key, node, p) });
          }
          const connection = node.connectionId ? (this.connectionName.get(node.connectionId) ?? node.connectionId) : undefined;
          return {
            id: node.id,
            name: node.name,
            key: node.key,
            connection,
            config,
            position: node.position,
            notes: node.notes,
            disabled: node.disabled || undefined,
          };
        }),
        edges: graph.edges,
        notes: graph.notes,
      },
    };
  }

  lineSpec(row: LineRow): LineSpec {
    return { key: this.lineKey.get(row.id)!, name: row.name, steps: row.steps.map((s) => ({ name: s.name, automation: this.appKey.get(s.appId) ?? s.appId })) };
  }

  intakeSpec(row: IntakeRow): IntakeSpec {
    const key = this.intakeKey.get(row.id)!;
    const sig = intakeSignatureSettings(row.config);
    return {
      key,
      name: row.name,
      line: (row.lineId && this.lineKey.get(row.lineId)) || String(row.lineId),
      open: (row.config as { open?: boolean } | null)?.open ?? true,
      secret: { secret: intakeSecretName(row, key) },
      // Only when set, so files written before these settings existed still match.
      ...(sig.requireTimestampedSignature ? { requireTimestampedSignature: true } : {}),
      ...(sig.signatureToleranceSeconds !== null ? { signatureToleranceSeconds: sig.signatureToleranceSeconds } : {}),
    };
  }

  /** A stored secret (sealed node value form, `secret:…`) known under `name` anywhere in the workspace. */
  storedSecretNamed(name: string): string | undefined {
    for (const row of this.rows.automations) {
      const key = this.appKey.get(row.id)!;
      for (const node of GraphSchema.parse(row.graph).nodes) {
        for (const p of secretPathsFor(node.key)) {
          const v = getPath(node.config, p);
          if (isSealed(v) && nodeSecretName(row, key, node, p) === name) return v;
        }
      }
    }
    for (const row of this.rows.intakes) {
      if (row.secretEnc && intakeSecretName(row, this.intakeKey.get(row.id)!) === name) return `secret:${row.secretEnc}`;
    }
    return undefined;
  }
}
