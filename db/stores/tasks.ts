/** Tasks on lines and their activity timeline. */
import { and, asc, desc, eq, gte, lt, or, sql, type SQL } from "drizzle-orm";
import { first, type Ctx } from "../store-kit";
import type { LineRow, TaskActivityRow, TaskRow } from "../types";

export interface NewActivity {
  taskId: string;
  kind: string;
  message?: string;
  actor?: string | null;
  at: string;
  runId?: string | null;
  stepIndex?: number | null;
  data?: Record<string, unknown> | null;
}

export interface TaskFilter {
  lineId?: string;
  status?: TaskRow["status"];
  createdFrom?: string;
  createdTo?: string;
}

export const tasksStore = {
  async get(c: Ctx, taskId: string, workspaceId?: string): Promise<TaskRow | undefined> {
    const { tasks } = c.t;
    const where = workspaceId ? and(eq(tasks.id, taskId), eq(tasks.workspaceId, workspaceId)) : eq(tasks.id, taskId);
    return first(c.h.select().from(tasks).where(where).limit(1));
  },

  /** Newest first, keyset-paginated by (createdAt, id). */
  async list(c: Ctx, workspaceId: string, f: TaskFilter, opts: { limit: number; after?: { createdAt: string; id: string } | null }): Promise<TaskRow[]> {
    const { tasks } = c.t;
    const conds: SQL[] = [eq(tasks.workspaceId, workspaceId)];
    if (f.lineId) conds.push(eq(tasks.lineId, f.lineId));
    if (f.status) conds.push(eq(tasks.status, f.status));
    if (f.createdFrom) conds.push(gte(tasks.createdAt, f.createdFrom));
    if (f.createdTo) conds.push(lt(tasks.createdAt, f.createdTo));
    const a = opts.after;
    if (a) conds.push(or(lt(tasks.createdAt, a.createdAt), and(eq(tasks.createdAt, a.createdAt), lt(tasks.id, a.id)))!);
    return c.h
      .select()
      .from(tasks)
      .where(and(...conds))
      .orderBy(desc(tasks.createdAt), desc(tasks.id))
      .limit(opts.limit);
  },

  async insert(c: Ctx, row: TaskRow): Promise<void> {
    await c.h.insert(c.t.tasks).values(row);
  },

  async update(c: Ctx, taskId: string, patch: Partial<Omit<TaskRow, "id" | "workspaceId" | "activitySeq">>): Promise<void> {
    const { tasks } = c.t;
    await c.h.update(tasks).set(patch).where(eq(tasks.id, taskId));
  },

  /** The line a task belongs to, or the workspace's first line when `lineId` is not given. */
  async line(c: Ctx, workspaceId: string, lineId?: string): Promise<LineRow | undefined> {
    const { lines } = c.t;
    if (lineId)
      return first(
        c.h
          .select()
          .from(lines)
          .where(and(eq(lines.id, lineId), eq(lines.workspaceId, workspaceId)))
          .limit(1),
      );
    return first(c.h.select().from(lines).where(eq(lines.workspaceId, workspaceId)).orderBy(asc(lines.createdAt), asc(lines.id)).limit(1));
  },

  /** Appends a timeline entry; its sequence number comes from an atomic increment on the task row. */
  async addActivity(c: Ctx, id: string, a: NewActivity): Promise<TaskActivityRow> {
    const { tasks, taskActivity } = c.t;
    return c.tx(async (x) => {
      const [bumped] = await x.h
        .update(tasks)
        .set({ activitySeq: sql`${tasks.activitySeq} + 1` })
        .where(eq(tasks.id, a.taskId))
        .returning({ seq: tasks.activitySeq });
      if (!bumped) throw new Error(`Task ${a.taskId} does not exist`);
      const row: TaskActivityRow = {
        id,
        taskId: a.taskId,
        seq: bumped.seq,
        at: a.at,
        kind: a.kind,
        runId: a.runId ?? null,
        stepIndex: a.stepIndex ?? null,
        message: a.message ?? "",
        actor: a.actor ?? null,
        data: a.data ?? null,
      };
      await x.h.insert(taskActivity).values(row);
      return row;
    });
  },

  /** Oldest first after sequence `afterSeq`. */
  async activity(c: Ctx, taskId: string, opts: { limit: number; afterSeq?: number }): Promise<TaskActivityRow[]> {
    const { taskActivity } = c.t;
    const conds: SQL[] = [eq(taskActivity.taskId, taskId)];
    if (opts.afterSeq !== undefined) conds.push(sql`${taskActivity.seq} > ${opts.afterSeq}`);
    return c.h
      .select()
      .from(taskActivity)
      .where(and(...conds))
      .orderBy(asc(taskActivity.seq))
      .limit(opts.limit);
  },

  /** The sequence number of one entry of a task's timeline (undefined when the task has no such entry). */
  async activitySeq(c: Ctx, taskId: string, entryId: string): Promise<number | undefined> {
    const { taskActivity } = c.t;
    const row = await first(
      c.h
        .select({ seq: taskActivity.seq })
        .from(taskActivity)
        .where(and(eq(taskActivity.taskId, taskId), eq(taskActivity.id, entryId)))
        .limit(1),
    );
    return row?.seq;
  },

  async lastActivity(c: Ctx, taskId: string): Promise<TaskActivityRow | undefined> {
    const { taskActivity } = c.t;
    return first(c.h.select().from(taskActivity).where(eq(taskActivity.taskId, taskId)).orderBy(desc(taskActivity.seq)).limit(1));
  },
};
