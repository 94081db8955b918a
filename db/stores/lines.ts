/** Lines: CRUD and the counts the line rules need (open tasks, automations of the workspace). */
import { and, asc, count, eq, gt, inArray, isNull, ne, or, type SQL } from "drizzle-orm";
import { first, type Ctx, type Optional } from "../store-kit";
import type { KeyedRow, LineRow, ManagedSource } from "../types";

export const linesStore = {
  async get(c: Ctx, workspaceId: string, lineId: string): Promise<LineRow | undefined> {
    const { lines } = c.t;
    return first(
      c.h
        .select()
        .from(lines)
        .where(and(eq(lines.id, lineId), eq(lines.workspaceId, workspaceId)))
        .limit(1),
    );
  },

  /** Oldest first, keyset-paginated by (createdAt, id). */
  async list(c: Ctx, workspaceId: string, opts: { limit: number; after?: { createdAt: string; id: string } | null }): Promise<LineRow[]> {
    const { lines } = c.t;
    const conds: SQL[] = [eq(lines.workspaceId, workspaceId)];
    const a = opts.after;
    if (a) conds.push(or(gt(lines.createdAt, a.createdAt), and(eq(lines.createdAt, a.createdAt), gt(lines.id, a.id)))!);
    return c.h
      .select()
      .from(lines)
      .where(and(...conds))
      .orderBy(asc(lines.createdAt), asc(lines.id))
      .limit(opts.limit);
  },

  async openTaskCount(c: Ctx, lineId: string): Promise<number> {
    const { tasks } = c.t;
    const row = await first(
      c.h
        .select({ n: count() })
        .from(tasks)
        .where(and(eq(tasks.lineId, lineId), ne(tasks.status, "closed"))),
    );
    return row?.n ?? 0;
  },

  /** Which of `ids` are automations of the workspace. */
  async existingAutomationIds(c: Ctx, workspaceId: string, ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const { automations } = c.t;
    const rows = await c.h
      .select({ id: automations.id })
      .from(automations)
      .where(and(eq(automations.workspaceId, workspaceId), inArray(automations.id, ids)));
    return new Set(rows.map((r) => r.id));
  },

  /** `key` and `source` default to null. */
  async insert(c: Ctx, row: Optional<LineRow, "key" | "source">): Promise<void> {
    await c.h.insert(c.t.lines).values(row);
  },

  /** Every line of the workspace, oldest first. */
  async allOf(c: Ctx, workspaceId: string): Promise<LineRow[]> {
    const { lines } = c.t;
    return c.h.select().from(lines).where(eq(lines.workspaceId, workspaceId)).orderBy(asc(lines.createdAt), asc(lines.id));
  },

  /** Id, key, name and creation time of every line of the workspace. */
  async keys(c: Ctx, workspaceId: string): Promise<KeyedRow[]> {
    const { lines: l } = c.t;
    return c.h.select({ id: l.id, key: l.key, name: l.name, createdAt: l.createdAt }).from(l).where(eq(l.workspaceId, workspaceId));
  },

  /** Stores `key` on a line that has none yet; false when it has one (or is gone). */
  async setKeyIfUnset(c: Ctx, lineId: string, key: string): Promise<boolean> {
    const { lines: l } = c.t;
    return (
      (
        await c.h
          .update(l)
          .set({ key })
          .where(and(eq(l.id, lineId), isNull(l.key)))
          .returning({ id: l.id })
      ).length > 0
    );
  },

  /** Where the line was last applied from. Does not touch updatedAt. */
  async setSource(c: Ctx, lineId: string, source: ManagedSource | null): Promise<void> {
    const { lines: l } = c.t;
    await c.h.update(l).set({ source }).where(eq(l.id, lineId));
  },

  async update(c: Ctx, lineId: string, patch: Partial<Pick<LineRow, "name" | "key" | "steps" | "updatedAt">>): Promise<void> {
    const { lines } = c.t;
    await c.h.update(lines).set(patch).where(eq(lines.id, lineId));
  },

  /** Deletes the line and its (closed) tasks. */
  async delete(c: Ctx, lineId: string): Promise<void> {
    const { lines, tasks } = c.t;
    await c.tx(async (x) => {
      await x.h.delete(tasks).where(eq(tasks.lineId, lineId));
      await x.h.delete(lines).where(eq(lines.id, lineId));
    });
  },
};
