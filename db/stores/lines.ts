/** Lines: CRUD and the counts the line rules need (open tasks, automations of the workspace). */
import { and, asc, count, eq, gt, inArray, ne, or, type SQL } from "drizzle-orm";
import { first, type Ctx } from "../store-kit";
import type { LineRow } from "../types";

export const linesStore = {
  async get(c: Ctx, workspaceId: string, lineId: string): Promise<LineRow | undefined> {
    const { lines } = c.t;
    return first(c.h.select().from(lines).where(and(eq(lines.id, lineId), eq(lines.workspaceId, workspaceId))).limit(1));
  },

  /** Oldest first, keyset-paginated by (createdAt, id). */
  async list(c: Ctx, workspaceId: string, opts: { limit: number; after?: { createdAt: string; id: string } | null }): Promise<LineRow[]> {
    const { lines } = c.t;
    const conds: SQL[] = [eq(lines.workspaceId, workspaceId)];
    const a = opts.after;
    if (a) conds.push(or(gt(lines.createdAt, a.createdAt), and(eq(lines.createdAt, a.createdAt), gt(lines.id, a.id)))!);
    return c.h.select().from(lines).where(and(...conds)).orderBy(asc(lines.createdAt), asc(lines.id)).limit(opts.limit);
  },

  async openTaskCount(c: Ctx, lineId: string): Promise<number> {
    const { tasks } = c.t;
    const row = await first(c.h.select({ n: count() }).from(tasks).where(and(eq(tasks.lineId, lineId), ne(tasks.status, "closed"))));
    return row?.n ?? 0;
  },

  /** Which of `ids` are automations of the workspace. */
  async existingAutomationIds(c: Ctx, workspaceId: string, ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const { automations } = c.t;
    const rows = await c.h.select({ id: automations.id }).from(automations).where(and(eq(automations.workspaceId, workspaceId), inArray(automations.id, ids)));
    return new Set(rows.map((r) => r.id));
  },

  async insert(c: Ctx, row: LineRow): Promise<void> {
    await c.h.insert(c.t.lines).values(row);
  },

  async update(c: Ctx, lineId: string, patch: Partial<Pick<LineRow, "name" | "steps" | "updatedAt">>): Promise<void> {
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
