/** The doors' validation: loads a workspace's facts (its connections, the error-handler automation) for the pure validator. */
import { and, eq, inArray } from "drizzle-orm";
import { automations, connections } from "@/db/schema";
import type { AppDeps } from "../../deps";
import type { DocumentProblem } from "../../contracts/automations";
import { upstreamProblems, type CheckTarget } from "./check-upstream";
import { validateDocument } from "./validate-automation";

/** Loads the workspace facts (connections, error-handler automation), validates the document and runs the upstream checks. */
export async function validateAutomationDocument(deps: AppDeps, workspaceId: string, doc: unknown, selfId?: string): Promise<DocumentProblem[]> {
  const graph = (doc as { graph?: { nodes?: Array<{ connectionId?: unknown }> } } | null)?.graph;
  const connIds = [...new Set((Array.isArray(graph?.nodes) ? graph.nodes : []).map((n) => n?.connectionId).filter((x): x is string => typeof x === "string" && !!x))];
  const rows = connIds.length
    ? deps.db.select({ id: connections.id, integration: connections.integration, config: connections.config, state: connections.state }).from(connections).where(and(eq(connections.workspaceId, workspaceId), inArray(connections.id, connIds))).all()
    : [];
  const conns = new Map(rows.map((c) => [c.id, { id: c.id, integration: c.integration, config: (c.config ?? {}) as Record<string, unknown>, state: (c.state ?? {}) as Record<string, unknown> }]));
  const automationExists = (id: string) => !!deps.db.select({ id: automations.id }).from(automations).where(and(eq(automations.id, id), eq(automations.workspaceId, workspaceId))).get();
  const checks: CheckTarget[] = [];
  const problems = validateDocument(doc, { connections: conns, automationExists, selfId, checks });
  for (const p of await upstreamProblems(deps, checks)) problems.push({ ...p, severity: "error" });
  return problems;
}

