/**
 * What the editor's trigger panel shows for one trigger node: its webhook URL (once saved and
 * enabled), the integration's set-up snippets (e.g. alertmanager.yml), the last events received, and the
 * deliveries it refused (server/services/webhooks/refusals.ts).
 */
import { findTrigger } from "@/integrations/registry";
import { withLegacyDefaults, type ConnectionHandle } from "@/integrations/core/define";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError } from "../../errors";
import { getAutomationOrThrow } from "../automations/get-automation";
import { loadConnectionHandle } from "../connections/load-connection";

export async function getTriggerInfo(deps: AppDeps, actor: Actor, workspaceId: string, automationId: string, nodeId: string) {
  const a = await getAutomationOrThrow(deps, actor, workspaceId, automationId);
  const node = a.graph.nodes.find((n) => n.id === nodeId);
  const trigger = node && findTrigger(node.key);
  if (!node || !trigger) throw new AppError("not_found", `Node ${nodeId} is not a saved trigger of this automation; save first.`);
  const { url = null, intakeId = null } = a.triggers.find((t) => t.nodeId === nodeId) ?? {};

  let instructions: Array<{ title: string; language?: string; text: string }> = [];
  if (url && trigger.setupInstructions) {
    let connection: ConnectionHandle | undefined;
    if (node.connectionId) connection = await loadConnectionHandle(deps, node.connectionId).catch(() => undefined);
    try {
      const config = withLegacyDefaults(trigger, node.config);
      instructions = trigger.setupInstructions({ url, config: trigger.config.safeParse(config).data ?? config, connection });
    } catch (err) {
      deps.log.warn("setupInstructions failed", { automationId, nodeId, error: (err as Error).message });
    }
  }

  // The node's intake: its own, or the connection's shared one (where a shared webhook's refusals are counted).
  const [rows, intake] = await Promise.all([
    deps.store.automations.recentEvents(automationId, nodeId, 10),
    intakeId ? deps.store.intakes.get(workspaceId, intakeId) : undefined,
  ]);
  const runRows = rows.length ? await deps.store.automations.recentRuns(automationId, 50) : [];
  return {
    url,
    instructions,
    events: rows.map((r) => ({ ...r, runId: runRows.find((x) => x.eventId === r.id)?.id ?? null })),
    /** Deliveries the URL refused (wrong secret, not JSON…): how many, and the latest with what the sender was told. */
    refused: { count: intake?.refusedCount ?? 0, last: intake?.lastRefused ?? null },
  };
}
