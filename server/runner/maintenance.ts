/**
 * Housekeeping, run by every runner about once a second (cheap when there is nothing to do):
 * usage counters flushed, schedule triggers fired (deduplicated per tick, so several processes
 * fire each tick once), and less often: run history pruned by age and count, the WAL
 * checkpointed, trigger `maintain` (upstream registrations that expire).
 */
import type { AppDeps } from "../deps";
import { findTrigger } from "@/integrations/registry";
import { envelope, withLegacyDefaults } from "@/integrations/core/define";
import { maintainTriggers } from "../services/automations/trigger-lifecycle";
import { createRunInTx } from "./create-run";
import { getVersionGraph } from "./graph-cache";
import { notifyWork } from "./signal";
import { flushUsage } from "./usage";

export interface MaintenanceOptions {
  retentionDays: number;
  retentionCount: number;
  pruneEveryMs: number;
  maintainEveryMs: number;
}

const DEFAULTS: MaintenanceOptions = { retentionDays: 30, retentionCount: 10_000, pruneEveryMs: 60_000, maintainEveryMs: 3_600_000 };
const last = new WeakMap<object, { prune: number; maintain: number }>();

export async function runMaintenance(deps: AppDeps, partial: Partial<MaintenanceOptions> = {}): Promise<void> {
  const opts = { ...DEFAULTS, ...partial };
  flushUsage(deps.db);
  fireSchedules(deps);
  const l = last.get(deps.db) ?? { prune: Date.now(), maintain: 0 };
  last.set(deps.db, l);
  if (Date.now() - l.prune >= opts.pruneEveryMs) {
    l.prune = Date.now();
    pruneHistory(deps, opts);
    // Safety net; the checkpointer thread (db/checkpointer.ts) normally keeps the WAL short.
    deps.db.$client.pragma("wal_checkpoint(PASSIVE)");
  }
  if (Date.now() - l.maintain >= opts.maintainEveryMs) {
    l.maintain = Date.now();
    await maintainTriggers(deps);
  }
}

type ScheduleIntake = { id: string; ws: string; automationId: string; nodeId: string; config: string };

export function fireSchedules(deps: AppDeps): number {
  const c = deps.db.$client;
  const now = deps.now();
  const due = c
    .prepare(
      `select id, workspace_id as ws, automation_id as automationId, node_id as nodeId, config from intakes
       where kind = 'trigger' and status = 'active' and json_extract(config, '$.nextFireAt') <= ?`,
    )
    .all(now.toISOString()) as ScheduleIntake[];
  let fired = 0;
  for (const intake of due) {
    const cfg = JSON.parse(intake.config) as { nextFireAt: string };
    const a = c.prepare("select version, enabled from automations where id = ?").get(intake.automationId) as { version: number; enabled: number } | undefined;
    if (!a?.enabled) continue;
    const graph = getVersionGraph(deps.db, intake.automationId, a.version);
    const node = graph.byId.get(intake.nodeId);
    const trigger = node && findTrigger(node.key);
    if (!node || !trigger?.nextFireAt) continue;
    const parsed = trigger.config.safeParse(withLegacyDefaults(trigger, node.config));
    if (!parsed.success) continue;
    const next = trigger.nextFireAt(parsed.data, now);
    const created = c.transaction(() => {
      const moved = c
        .prepare("update intakes set config = json_set(config, '$.nextFireAt', ?), last_event_at = ?, event_count = event_count + 1, updated_at = ? where id = ? and json_extract(config, '$.nextFireAt') = ?")
        .run(next ? next.toISOString() : "9999-12-31T00:00:00.000Z", now.toISOString(), now.toISOString(), intake.id, cfg.nextFireAt);
      if (!moved.changes) return null; // another process fired this tick
      return createRunInTx(deps.db, {
        workspaceId: intake.ws,
        automationId: intake.automationId,
        version: a.version,
        triggerNodeId: node.id,
        graph,
        source: "schedule",
        intakeId: intake.id,
        dedupeScope: intake.id,
        dedupeKey: `tick:${cfg.nextFireAt}`,
        envelope: envelope(trigger.outputType, { ...(parsed.data as object), scheduledAt: cfg.nextFireAt }, now),
        at: now,
      });
    }).immediate();
    if (created) fired++;
  }
  if (fired) notifyWork();
  return fired;
}

/** Deletes at most 5,000 runs per rule and pass (with their steps), so a pass never stalls the process. */
export function pruneHistory(deps: AppDeps, opts: Pick<MaintenanceOptions, "retentionDays" | "retentionCount">): number {
  const c = deps.db.$client;
  const cutoff = new Date(deps.now().getTime() - opts.retentionDays * 86_400_000).toISOString();
  const finished = "status in ('succeeded', 'failed', 'cancelled')";
  let removed = c.prepare(`delete from runs where id in (select id from runs where ${finished} and created_at < ? limit 5000)`).run(cutoff).changes;
  const over = c
    .prepare("select automation_id as a, count(*) as n from runs group by automation_id having count(*) > ?")
    .all(opts.retentionCount) as Array<{ a: string; n: number }>;
  for (const { a } of over) {
    removed += c
      .prepare(
        `delete from runs where id in (select id from (select id from runs where automation_id = ? and ${finished} order by created_at desc, id desc limit -1 offset ?) limit 5000)`,
      )
      .run(a, opts.retentionCount).changes;
  }
  if (removed) {
    c.prepare("delete from events where received_at < ? and id not in (select event_id from runs)").run(cutoff);
  }
  return removed;
}
