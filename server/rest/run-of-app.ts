/** Runs are addressed under their automation in REST paths: a run of another automation is a 404. */
import type { AppDeps } from "../deps";
import type { Actor } from "../auth/permissions";
import { notFound } from "../errors";
import { getRunOrThrow } from "../services/runs";

export async function getRunOfApp(deps: AppDeps, actor: Actor, workspaceId: string, appId: string, runId: string) {
  const run = await getRunOrThrow(deps, actor, workspaceId, runId);
  if (run.automationId !== appId) throw notFound("Run", runId);
  return run;
}
