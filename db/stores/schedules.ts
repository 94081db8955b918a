/**
 * Schedule triggers: their intakes keep the next fire time in `config.nextFireAt`. Moving it forward
 * is a guarded update, so of several processes ticking at once exactly one fires each tick.
 */
import { sql } from "drizzle-orm";
import type { Ctx } from "../store-kit";

export interface DueSchedule {
  id: string;
  workspaceId: string;
  automationId: string;
  nodeId: string;
  nextFireAt: string;
}

export const schedulesStore = {
  async due(c: Ctx, nowIso: string, limit = 500): Promise<DueSchedule[]> {
    const { intakes: i } = c.t;
    const next = c.dialect === "postgres" ? sql<string>`(${i.config}->>'nextFireAt')` : sql<string>`json_extract(${i.config}, '$.nextFireAt')`;
    const rows = await c.h
      .select({ id: i.id, workspaceId: i.workspaceId, automationId: i.automationId, nodeId: i.nodeId, nextFireAt: next })
      .from(i)
      .where(sql`${i.kind} = 'trigger' and ${i.status} = 'active' and ${next} <= ${nowIso}`)
      .limit(limit);
    return rows.filter((r): r is DueSchedule => !!r.automationId && !!r.nodeId && !!r.nextFireAt);
  },

  /** Moves the schedule from `fromFireAt` to `nextFireAt`; false when another process already did. */
  async advance(c: Ctx, intakeId: string, fromFireAt: string, nextFireAt: string, nowIso: string): Promise<boolean> {
    const { intakes: i } = c.t;
    const cur = c.dialect === "postgres" ? sql`(${i.config}->>'nextFireAt')` : sql`json_extract(${i.config}, '$.nextFireAt')`;
    const set =
      c.dialect === "postgres"
        ? sql`jsonb_set(${i.config}::jsonb, '{nextFireAt}', to_jsonb(${nextFireAt}::text))::json`
        : sql`json_set(${i.config}, '$.nextFireAt', ${nextFireAt})`;
    const rows = await c.h
      .update(i)
      .set({ config: set as never, lastEventAt: nowIso, eventCount: sql`${i.eventCount} + 1`, updatedAt: nowIso })
      .where(sql`${i.id} = ${intakeId} and ${cur} = ${fromFireAt}`)
      .returning({ id: i.id });
    return rows.length === 1;
  },
};
