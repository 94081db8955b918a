/**
 * Housekeeping, run by every runner about once a second (cheap when there is nothing to do):
 * usage counters flushed, schedule triggers fired (a guarded update per tick, so of several processes
 * exactly one fires each tick), follow-ups a dead process left behind, and less often: run history
 * pruned by age and count, expired memories (core.remember) deleted, trigger `maintain` (upstream registrations that expire).
 */
import type { AppDeps } from "../deps";
import { findTrigger } from "@/integrations/registry";
import { envelope, withLegacyDefaults } from "@/integrations/core/define";
import { getVersionGraph } from "../graphs";
import { countCreatedRun, flushUsage } from "../usage-counters";
import { runFollowups } from "./follow-ups";
import type { RunnerHooks } from "./hooks";
import { MAX_SIGNATURE_TOLERANCE_S } from "@/integrations/core/signed-delivery";

export interface MaintenanceOptions {
  retentionDays: number;
  retentionCount: number;
  pruneEveryMs: number;
  maintainEveryMs: number;
  /** Follow-ups older than this are taken over (their process died). */
  followupGraceMs: number;
}

const DEFAULTS: MaintenanceOptions = { retentionDays: 30, retentionCount: 10_000, pruneEveryMs: 60_000, maintainEveryMs: 3_600_000, followupGraceMs: 10_000 };
const last = new WeakMap<object, { prune: number; maintain: number }>();

export async function runMaintenance(deps: AppDeps, hooks: RunnerHooks, partial: Partial<MaintenanceOptions> = {}): Promise<void> {
  const opts = { ...DEFAULTS, ...partial };
  await flushUsage(deps.store);
  await fireSchedules(deps);
  await resumeFollowups(deps, hooks, opts.followupGraceMs);
  const l = last.get(deps.store) ?? { prune: Date.now(), maintain: 0 };
  last.set(deps.store, l);
  if (Date.now() - l.prune >= opts.pruneEveryMs) {
    l.prune = Date.now();
    await pruneHistory(deps, opts);
    await pruneUsedSignatures(deps);
    await deps.store.memories.prune(deps.now().toISOString());
  }
  if (Date.now() - l.maintain >= opts.maintainEveryMs) {
    l.maintain = Date.now();
    await hooks.maintainTriggers();
  }
}

export async function fireSchedules(deps: AppDeps): Promise<number> {
  const now = deps.now();
  const nowIso = now.toISOString();
  let fired = 0;
  const runIds: string[] = [];
  for (const due of await deps.store.schedules.due(nowIso)) {
    const a = await deps.store.versions.head(due.automationId);
    if (!a?.enabled) continue;
    const graph = await getVersionGraph(deps.store, due.automationId, a.version);
    const node = graph.byId.get(due.nodeId);
    const trigger = node && findTrigger(node.key);
    if (!node || !trigger?.nextFireAt) continue;
    const parsed = trigger.config.safeParse(withLegacyDefaults(trigger, node.config));
    if (!parsed.success) continue;
    const next = trigger.nextFireAt(parsed.data, now);
    const created = await deps.store.tx(async (s) => {
      if (!(await s.schedules.advance(due.id, due.nextFireAt, next ? next.toISOString() : "9999-12-31T00:00:00.000Z", nowIso))) return null; // another process fired this tick
      return s.runs.create({
        workspaceId: due.workspaceId,
        automationId: due.automationId,
        version: a.version,
        triggerNodeId: node.id,
        firstNodes: graph.children.get(node.id) ?? [],
        source: "schedule",
        intakeId: due.id,
        dedupeScope: due.id,
        dedupeKey: `tick:${due.nextFireAt}`,
        envelope: envelope(trigger.outputType, { ...(parsed.data as object), scheduledAt: due.nextFireAt }, now),
        at: now,
      });
    });
    countCreatedRun(due.workspaceId, created, { newEvent: true, at: now });
    if (created) {
      fired++;
      runIds.push(created.runId);
    }
  }
  if (runIds.length) deps.queue.publish(runIds);
  return fired;
}

async function resumeFollowups(deps: AppDeps, hooks: RunnerHooks, graceMs: number): Promise<void> {
  const before = new Date(deps.now().getTime() - graceMs).toISOString();
  for (const run of await deps.store.runs.followupsDue(before, 50)) {
    const r = await runFollowups(deps.store, hooks, run.id, deps.now());
    if (r.handlerRunId) deps.queue.publish([r.handlerRunId]);
  }
}

/**
 * One pruning pass: at most 5,000 runs per workspace (age) and per automation (count), with their steps
 * and events, deleted in short chunks (db/stores/runs.ts prune), so a pass never stalls the process.
 */
export async function pruneHistory(deps: AppDeps, opts: Pick<MaintenanceOptions, "retentionDays" | "retentionCount">): Promise<number> {
  const cutoff = new Date(deps.now().getTime() - opts.retentionDays * 86_400_000).toISOString();
  return deps.store.runs.prune(cutoff, opts.retentionCount, 5000);
}

/**
 * Used webhook signatures (replay protection) are forgotten an hour (the largest tolerance a webhook
 * may set) after their own tolerance ran out: a tolerance raised meanwhile never lets one be used again.
 */
export function pruneUsedSignatures(deps: AppDeps): Promise<number> {
  return deps.store.webhookSignatures.prune(deps.now().getTime() - MAX_SIGNATURE_TOLERANCE_S * 1000);
}
