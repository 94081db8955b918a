/**
 * Run history retention, part of the runs store (spread into it: `store.runs.prune`,
 * `store.runs.deleteOfAutomation`): pruning by age and by count per automation, and deleting an
 * automation's runs. Written once for both engines.
 */
import { and, asc, desc, eq, inArray, isNull, lt, notExists, or, sql } from "drizzle-orm";
import { first, type Ctx } from "../store-kit";

/** Runs deleted per statement (and transaction) when pruning. */
const PRUNE_CHUNK = 200;

export const runRetentionStore = {
  /**
   * History pruning, one pass: finished runs older than `cutoffIso`, and beyond the newest
   * `keepPerAutomation` of each automation, at most `batch` per rule (steps go with their run, and
   * so do their events once no other run refers to them; an event with a dedupe key is kept until
   * the cutoff, so a redelivery within the retention period still starts nothing); then events
   * older than the cutoff that no run refers to. Every lookup is an index range per workspace or
   * automation (never a scan of the history), and deletes go in chunks of `CHUNK` runs, each its
   * own short transaction, so a pass never holds the database (or SQLite's event loop) for long.
   */
  async prune(c: Ctx, cutoffIso: string, keepPerAutomation: number, batch: number): Promise<number> {
    const { runs, events, workspaces, automations } = c.t;
    const finished = inArray(runs.status, ["succeeded", "failed", "cancelled"]);
    let removed = 0;
    const del = async (ids: string[]) => {
      for (let i = 0; i < ids.length; i += PRUNE_CHUNK) {
        removed += await c.tx(async (x) => {
          const gone = await x.h
            .delete(runs)
            .where(inArray(runs.id, ids.slice(i, i + PRUNE_CHUNK)))
            .returning({ eventId: runs.eventId });
          const eventIds = [...new Set(gone.map((r) => r.eventId))];
          if (eventIds.length) {
            await x.h.delete(events).where(
              and(
                inArray(events.id, eventIds),
                or(sql`${events.dedupeKey} is null`, lt(events.receivedAt, cutoffIso)),
                notExists(
                  x.h
                    .select({ one: sql`1` })
                    .from(runs)
                    .where(eq(runs.eventId, events.id)),
                ),
              ),
            );
          }
          return gone.length;
        });
        await new Promise((r) => setImmediate(r));
      }
    };
    // Age: per workspace, the oldest runs first (index on workspace_id, created_at, id).
    for (const { id } of await c.h.select({ id: workspaces.id }).from(workspaces)) {
      const old = await c.h
        .select({ id: runs.id })
        .from(runs)
        .where(and(eq(runs.workspaceId, id), lt(runs.createdAt, cutoffIso), finished))
        .orderBy(asc(runs.workspaceId), asc(runs.createdAt), asc(runs.id))
        .limit(batch);
      await del(old.map((r) => r.id));
    }
    // Count: per automation, the position of its newest `keep`-th run (an index walk of `keep`
    // entries), then finished runs older than it.
    for (const { id } of await c.h.select({ id: automations.id }).from(automations)) {
      const edge = await first(
        c.h
          .select({ createdAt: runs.createdAt, id: runs.id })
          .from(runs)
          .where(eq(runs.automationId, id))
          .orderBy(desc(runs.createdAt), desc(runs.id))
          .limit(1)
          .offset(keepPerAutomation - 1),
      );
      if (!edge) continue;
      const over = await c.h
        .select({ id: runs.id })
        .from(runs)
        .where(and(eq(runs.automationId, id), sql`(${runs.createdAt}, ${runs.id}) < (${edge.createdAt}, ${edge.id})`, finished))
        .orderBy(asc(runs.automationId), asc(runs.createdAt), asc(runs.id))
        .limit(batch);
      await del(over.map((r) => r.id));
    }
    // Events past the cutoff that no run refers to: deliveries that started no run (automation
    // null), and events whose run went another way (an automation deleted before this rule existed).
    const stale = async (automationId: string | null) => {
      const ids = await c.h
        .select({ id: events.id })
        .from(events)
        .where(
          and(
            automationId === null ? isNull(events.automationId) : eq(events.automationId, automationId),
            lt(events.receivedAt, cutoffIso),
            notExists(
              c.h
                .select({ one: sql`1` })
                .from(runs)
                .where(eq(runs.eventId, events.id)),
            ),
          ),
        )
        .limit(batch);
      for (let i = 0; i < ids.length; i += PRUNE_CHUNK) {
        await c.h.delete(events).where(
          inArray(
            events.id,
            ids.slice(i, i + PRUNE_CHUNK).map((r) => r.id),
          ),
        );
        await new Promise((r) => setImmediate(r));
      }
    };
    await stale(null);
    for (const { id } of await c.h.select({ id: automations.id }).from(automations)) await stale(id);
    return removed;
  },

  /** Deletes an automation's runs (steps cascade), their queued step jobs and the automation's events. */
  async deleteOfAutomation(c: Ctx, automationId: string): Promise<void> {
    const { runs, jobs, outbox } = c.t;
    await c.tx(async (x) => {
      const runIds = (await x.h.select({ id: runs.id }).from(runs).where(eq(runs.automationId, automationId))).map((r) => r.id);
      for (let i = 0; i < runIds.length; i += 500) {
        await x.h.delete(jobs).where(inArray(jobs.runId, runIds.slice(i, i + 500)));
        await x.h.delete(outbox).where(inArray(outbox.runId, runIds.slice(i, i + 500)));
      }
      await x.h.delete(runs).where(eq(runs.automationId, automationId));
      await x.h.delete(c.t.events).where(eq(c.t.events.automationId, automationId));
    });
  },
};
