/** The doors' validation: loads a workspace's facts (its connections, the error-handler automation) for the pure validator. */
import type { AppDeps } from "../../deps";
import type { DocumentProblem } from "../../contracts/automations";
import { upstreamProblems, type CheckTarget } from "./check-upstream";
import { validateDocument } from "./validate-automation";

/** Loads the workspace facts (connections, error-handler automation), validates the document and runs the upstream checks. */
export async function validateAutomationDocument(deps: AppDeps, workspaceId: string, doc: unknown, selfId?: string): Promise<DocumentProblem[]> {
  const d = doc as { graph?: { nodes?: Array<{ connectionId?: unknown }> }; errorHandlerId?: unknown } | null;
  const nodes = Array.isArray(d?.graph?.nodes) ? d.graph.nodes : [];
  const connIds = [...new Set(nodes.map((n) => n?.connectionId).filter((x): x is string => typeof x === "string" && !!x))];
  const rows = connIds.length ? await deps.store.connections.getMany(workspaceId, connIds) : [];
  const conns = new Map(
    rows.map((c) => [
      c.id,
      { id: c.id, integration: c.integration, config: (c.config ?? {}) as Record<string, unknown>, state: (c.state ?? {}) as Record<string, unknown> },
    ]),
  );
  const handler = typeof d?.errorHandlerId === "string" ? d.errorHandlerId : undefined;
  const handlerExists = handler ? !!(await deps.store.automations.get(workspaceId, handler)) : false;
  const checks: CheckTarget[] = [];
  const problems = validateDocument(doc, { connections: conns, automationExists: (id) => id === handler && handlerExists, selfId, checks });
  for (const p of await upstreamProblems(deps, checks)) problems.push({ ...p, severity: "error" });
  return problems;
}
