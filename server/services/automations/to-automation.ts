/** Automation rows → the response shape (DESIGN "Resource shapes"), with trigger URLs. */
import type { Store } from "@/db/store";
import type { AutomationRow } from "@/db/types";
import { findTrigger } from "@/integrations/registry";
import type { AppDeps } from "../../deps";
import { GraphSchema } from "../../contracts/graph";
import type { Automation } from "../../contracts/automations";
import { hookUrl } from "./trigger-lifecycle";
import { maskGraphSecrets } from "./node-secrets";

export type { AutomationRow };

export async function toAutomations(deps: AppDeps, s: Store, rows: AutomationRow[]): Promise<Automation[]> {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const own = await s.intakes.triggersOf(ids);
  const connIds = [...new Set(rows.flatMap((r) => r.graph.nodes.map((n) => n.connectionId)).filter((x): x is string => !!x))];
  const shared = await s.intakes.sharedOf(connIds);
  return rows.map((r) => {
    const graph = GraphSchema.parse(r.graph);
    const triggers = graph.nodes.flatMap((n) => {
      const t = findTrigger(n.key);
      if (!t) return [];
      let intake = own.find((i) => i.automationId === r.id && i.nodeId === n.id);
      if (t.delivery === "shared-webhook")
        intake = shared.find((i) => i.connectionId === n.connectionId && (i.config as { sharedKey?: string } | null)?.sharedKey === (t.sharedKey ?? t.key));
      const hasUrl = intake && (t.delivery === "webhook" || t.delivery === "shared-webhook");
      return [{ nodeId: n.id, key: n.key, intakeId: intake?.id ?? null, url: hasUrl ? hookUrl(deps, intake!.token) : null }];
    });
    return {
      id: r.id,
      workspaceId: r.workspaceId,
      key: r.key ?? null,
      name: r.name,
      description: r.description,
      enabled: r.enabled,
      concurrency: r.concurrency,
      errorHandlerId: r.errorHandlerId ?? null,
      version: r.version,
      graph: maskGraphSecrets(graph),
      triggers,
      source: r.source
        ? {
            repository: r.source.repository ?? null,
            path: r.source.path ?? null,
            commit: r.source.commit ?? null,
            appliedAt: r.source.appliedAt,
            appliedBy: r.source.appliedBy,
            appliedVersion: r.source.appliedVersion ?? null,
          }
        : null,
      problems: r.problems ?? [],
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    };
  });
}
