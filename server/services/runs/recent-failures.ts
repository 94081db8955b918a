/** The sidebar's "failed in the last 24 hours" count of a workspace's runs (on-call: overnight failures at a glance). */
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { requireWorkspace } from "../access";

export const RECENT_FAILURES_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Counted up to this many; `more` says there may be more (the badge shows "99+"). */
export const RECENT_FAILURES_CAP = 100;

/** Runs of the workspace that failed and were created in the last 24 hours (viewer and up). */
export async function recentFailures(deps: AppDeps, actor: Actor, workspaceId: string): Promise<{ failed: number; more: boolean; since: string }> {
  await requireWorkspace(deps.store, actor, workspaceId, "run.read");
  const since = new Date(deps.now().getTime() - RECENT_FAILURES_WINDOW_MS).toISOString();
  const n = await deps.store.runs.countFailedSince(workspaceId, since, RECENT_FAILURES_CAP);
  return { failed: Math.min(n, RECENT_FAILURES_CAP - 1), more: n >= RECENT_FAILURES_CAP, since };
}
