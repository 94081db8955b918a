/**
 * Save-time upstream checks (`check` of components and triggers), e.g. that a chosen service desk exists.
 * They run in parallel after the local validation of each node, each bounded in time. A check that cannot
 * answer (network, authorisation, time limit) adds nothing: an unreachable upstream never blocks a save,
 * the run reports it instead.
 */
import type { AnyComponent, AnyTrigger } from "@/integrations/core/define";
import { createHttpClient } from "@/integrations/core/http";
import type { AppDeps } from "../../deps";
import type { DocumentProblem } from "../../contracts/automations";
import { loadConnectionHandle } from "../connections/load-connection";

export const CHECK_TIMEOUT_MS = 5_000;

export interface CheckTarget {
  nodeId: string;
  /** `graph.nodes.<i>.config` */
  at: string;
  unit: AnyComponent | AnyTrigger;
  connectionId: string;
  config: unknown;
}

export async function upstreamProblems(deps: AppDeps, targets: CheckTarget[]): Promise<DocumentProblem[]> {
  const results = await Promise.all(
    targets.map(async (t): Promise<DocumentProblem[]> => {
      const signal = AbortSignal.timeout(CHECK_TIMEOUT_MS);
      try {
        const connection = await loadConnectionHandle(deps, t.connectionId);
        const found = await t.unit.check!(t.config, { connection, http: createHttpClient({ signal, timeoutMs: CHECK_TIMEOUT_MS }), signal });
        return found.map((p) => ({ path: p.path ? `${t.at}.${p.path}` : t.at, nodeId: t.nodeId, message: p.message }));
      } catch (e) {
        deps.log.debug("upstream check could not answer", { nodeId: t.nodeId, key: t.unit.key, error: (e as Error).message });
        return [];
      }
    }),
  );
  return results.flat();
}
