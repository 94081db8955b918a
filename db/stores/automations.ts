/**
 * Automations and their versions, plus the few run/event lookups the automation views need
 * (last run of each automation, recent events of a trigger node) and the cascade on delete.
 */
import { and, asc, desc, eq, inArray, isNull, lt, or, sql, type SQL } from "drizzle-orm";
import { first, type Ctx, type Optional } from "../store-kit";
import type { AutomationRow, AutomationVersionRow, KeyedRow, ManagedSource, StoredGraph } from "../types";

/** `%`, `_` and `\` of a user's search text matched literally (LIKE … ESCAPE '\'). */
function likeContains(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (m) => "\\" + m)}%`;
}

export const automationsStore = {
  async get(c: Ctx, workspaceId: string, automationId: string): Promise<AutomationRow | undefined> {
    const { automations } = c.t;
    return first(
      c.h
        .select()
        .from(automations)
        .where(and(eq(automations.id, automationId), eq(automations.workspaceId, workspaceId)))
        .limit(1),
    );
  },

  /**
   * The row, locked until the end of the caller's transaction: concurrent saves of one automation
   * queue here, so a version check made on the returned row holds until commit (a guarded no-op
   * UPDATE: on PostgreSQL it waits for a concurrent writer and returns the row as it committed).
   */
  async lock(c: Ctx, workspaceId: string, automationId: string): Promise<AutomationRow | undefined> {
    const { automations } = c.t;
    return first(
      c.h
        .update(automations)
        .set({ version: sql`${automations.version}` })
        .where(and(eq(automations.id, automationId), eq(automations.workspaceId, workspaceId)))
        .returning(),
    );
  },

  /** Newest first, keyset-paginated by (createdAt, id); `search` is a case-insensitive substring of the name. */
  async list(
    c: Ctx,
    workspaceId: string,
    opts: { limit: number; enabled?: boolean; search?: string; before?: { createdAt: string; id: string } | null },
  ): Promise<AutomationRow[]> {
    const { automations } = c.t;
    const conds: SQL[] = [eq(automations.workspaceId, workspaceId)];
    if (opts.enabled !== undefined) conds.push(eq(automations.enabled, opts.enabled));
    if (opts.search) conds.push(sql`lower(${automations.name}) like ${likeContains(opts.search)} escape '\\'`);
    const b = opts.before;
    if (b) conds.push(or(lt(automations.createdAt, b.createdAt), and(eq(automations.createdAt, b.createdAt), lt(automations.id, b.id)))!);
    return c.h
      .select()
      .from(automations)
      .where(and(...conds))
      .orderBy(desc(automations.createdAt), desc(automations.id))
      .limit(opts.limit);
  },

  /** Every enabled automation's graph (trigger upkeep). */
  async enabledGraphs(c: Ctx): Promise<Array<{ id: string; workspaceId: string; graph: StoredGraph }>> {
    const { automations } = c.t;
    return c.h
      .select({ id: automations.id, workspaceId: automations.workspaceId, graph: automations.graph })
      .from(automations)
      .where(eq(automations.enabled, true));
  },

  /** Automations of the workspace whose document mentions `connectionId` (as a JSON string value). */
  async usingConnection(c: Ctx, workspaceId: string, connectionId: string): Promise<Array<{ id: string; name: string }>> {
    const { automations } = c.t;
    const rows = await c.h
      .select({ id: automations.id, name: automations.name, graph: automations.graph })
      .from(automations)
      .where(eq(automations.workspaceId, workspaceId));
    const needle = JSON.stringify(connectionId);
    return rows.filter((r) => JSON.stringify(r.graph).includes(needle)).map(({ id, name }) => ({ id, name }));
  },

  /** Names of the workspace's lines with a step naming the automation. */
  async usedByLines(c: Ctx, workspaceId: string, automationId: string): Promise<string[]> {
    const { lines } = c.t;
    const rows = await c.h.select({ name: lines.name, steps: lines.steps }).from(lines).where(eq(lines.workspaceId, workspaceId));
    return rows.filter((l) => l.steps.some((s) => s.appId === automationId)).map((l) => l.name);
  },

  /** `key` and `source` default to null. */
  async insert(c: Ctx, row: Optional<AutomationRow, "key" | "source">): Promise<void> {
    await c.h.insert(c.t.automations).values(row);
  },

  /** Every automation of the workspace, oldest first (export, plan and apply read the whole workspace). */
  async allOf(c: Ctx, workspaceId: string): Promise<AutomationRow[]> {
    const { automations } = c.t;
    return c.h.select().from(automations).where(eq(automations.workspaceId, workspaceId)).orderBy(asc(automations.createdAt), asc(automations.id));
  },

  /** Id, key, name and creation time of every automation of the workspace (keys are derived for rows without one). */
  async keys(c: Ctx, workspaceId: string): Promise<KeyedRow[]> {
    const { automations: a } = c.t;
    return c.h.select({ id: a.id, key: a.key, name: a.name, createdAt: a.createdAt }).from(a).where(eq(a.workspaceId, workspaceId));
  },

  /** Stores `key` on a row that has none yet; false when the row has a key (or is gone). */
  async setKeyIfUnset(c: Ctx, automationId: string, key: string): Promise<boolean> {
    const { automations: a } = c.t;
    return (
      (
        await c.h
          .update(a)
          .set({ key })
          .where(and(eq(a.id, automationId), isNull(a.key)))
          .returning({ id: a.id })
      ).length > 0
    );
  },

  /** Where the automation was last applied from (null: no longer managed in Git). Does not touch updatedAt. */
  async setSource(c: Ctx, automationId: string, source: ManagedSource | null): Promise<void> {
    const { automations: a } = c.t;
    await c.h.update(a).set({ source }).where(eq(a.id, automationId));
  },

  /** Who saved the newest version (the conflict message of an apply). */
  async lastEditor(c: Ctx, automationId: string): Promise<string | null> {
    const { automationVersions: v } = c.t;
    return (await first(c.h.select({ by: v.createdBy }).from(v).where(eq(v.automationId, automationId)).orderBy(desc(v.version)).limit(1)))?.by ?? null;
  },

  async update(c: Ctx, automationId: string, patch: Partial<AutomationRow>): Promise<void> {
    const { automations } = c.t;
    await c.h.update(automations).set(patch).where(eq(automations.id, automationId));
  },

  /** Deletes the automation with its intakes (versions cascade); error-handler references to it are cleared. */
  async delete(c: Ctx, automationId: string): Promise<void> {
    const { automations, intakes } = c.t;
    await c.tx(async (x) => {
      await x.h.delete(intakes).where(eq(intakes.automationId, automationId));
      await x.h.update(automations).set({ errorHandlerId: null }).where(eq(automations.errorHandlerId, automationId));
      await x.h.delete(automations).where(eq(automations.id, automationId));
    });
  },

  async insertVersion(c: Ctx, row: AutomationVersionRow): Promise<void> {
    await c.h.insert(c.t.automationVersions).values(row);
  },

  /** Newest first. */
  async versions(c: Ctx, automationId: string): Promise<AutomationVersionRow[]> {
    const { automationVersions: v } = c.t;
    return c.h.select().from(v).where(eq(v.automationId, automationId)).orderBy(desc(v.version));
  },

  async version(c: Ctx, automationId: string, version: number): Promise<AutomationVersionRow | undefined> {
    const { automationVersions: v } = c.t;
    return first(
      c.h
        .select()
        .from(v)
        .where(and(eq(v.automationId, automationId), eq(v.version, version)))
        .limit(1),
    );
  },

  /** The newest run of the automation. */
  async lastRun(c: Ctx, automationId: string): Promise<{ id: string; status: string; createdAt: string } | undefined> {
    const { runs } = c.t;
    return first(
      c.h
        .select({ id: runs.id, status: runs.status, createdAt: runs.createdAt })
        .from(runs)
        .where(eq(runs.automationId, automationId))
        .orderBy(desc(runs.createdAt))
        .limit(1),
    );
  },

  /** The newest events a trigger node received. */
  async recentEvents(c: Ctx, automationId: string, nodeId: string, limit: number) {
    const { events } = c.t;
    return c.h
      .select({ id: events.id, receivedAt: events.receivedAt, envelope: events.envelope, source: events.source })
      .from(events)
      .where(and(eq(events.automationId, automationId), eq(events.nodeId, nodeId)))
      .orderBy(desc(events.receivedAt))
      .limit(limit);
  },

  /** The newest runs of the automation with the event each started from. */
  async recentRuns(c: Ctx, automationId: string, limit: number): Promise<Array<{ id: string; eventId: string }>> {
    const { runs } = c.t;
    return c.h.select({ id: runs.id, eventId: runs.eventId }).from(runs).where(eq(runs.automationId, automationId)).orderBy(desc(runs.createdAt)).limit(limit);
  },
};
