/** The sidebar's "failed in the last 24 hours" count of a workspace's runs (on-call: overnight failures at a glance), and its REST twin. */
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError } from "../../errors";
import { requireWorkspace } from "../access";

export const RECENT_FAILURES_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Counted up to this many; `more` says there may be more (the badge shows "99+"). */
export const RECENT_FAILURES_CAP = 100;

export interface RecentFailures {
  failed: number;
  more: boolean;
  since: string;
}

/**
 * Production runs of the workspace that failed and were created since `since` (default: the last 24 hours;
 * viewer and up). Test runs are left out: a test that fails in the editor is not a failure to page on.
 */
export async function recentFailures(deps: AppDeps, actor: Actor, workspaceId: string, opts: { since?: string } = {}): Promise<RecentFailures> {
  await requireWorkspace(deps.store, actor, workspaceId, "run.read");
  const now = deps.now().getTime();
  const sinceMs = opts.since ? Date.parse(opts.since) : now - RECENT_FAILURES_WINDOW_MS;
  if (sinceMs > now)
    throw new AppError("validation_failed", "`since` is in the future: give a time in the past (ISO 8601).", [
      { path: "query.since", message: "In the future" },
    ]);
  const since = new Date(sinceMs).toISOString();
  const n = await deps.store.runs.countFailedSince(workspaceId, since, RECENT_FAILURES_CAP);
  return { failed: Math.min(n, RECENT_FAILURES_CAP - 1), more: n >= RECENT_FAILURES_CAP, since };
}
