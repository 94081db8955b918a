/** Reading and editing tasks, comments and the activity timeline. */
import { and, asc, desc, eq, gt, gte, lt, or, type SQL } from "drizzle-orm";
import { taskActivity, tasks } from "@/db/schema";
import { transaction } from "@/db/client";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError } from "../../errors";
import { requireWorkspace } from "../access";
import { decodeCursor, encodeCursor } from "./cursor";
import { addTaskActivity } from "./task-activity";
import { getTaskRowOrThrow } from "./transition-task";
import { toOrder } from "./to-order";

export interface ListTasksInput {
  limit?: number;
  cursor?: string;
  lineId?: string;
  status?: "draft" | "open" | "closed";
  createdFrom?: string;
  createdTo?: string;
}

/** Newest first; the cursor is the last item's (createdAt, id), so inserts never shift later pages. */
export async function listTasks(deps: AppDeps, actor: Actor, workspaceId: string, q: ListTasksInput) {
  await requireWorkspace(deps.db, actor, workspaceId, "task.read");
  const limit = Math.min(Math.max(q.limit ?? 50, 1), 200);
  const after = decodeCursor(deps.box, q.cursor, { c: "string", i: "string" });
  const conds: SQL[] = [eq(tasks.workspaceId, workspaceId)];
  if (q.lineId) conds.push(eq(tasks.lineId, q.lineId));
  if (q.status) conds.push(eq(tasks.status, q.status));
  if (q.createdFrom) conds.push(gte(tasks.createdAt, new Date(q.createdFrom).toISOString()));
  if (q.createdTo) conds.push(lt(tasks.createdAt, new Date(q.createdTo).toISOString()));
  if (after) conds.push(or(lt(tasks.createdAt, after.c), and(eq(tasks.createdAt, after.c), lt(tasks.id, after.i)))!);
  const rows = await deps.db.select().from(tasks).where(and(...conds)).orderBy(desc(tasks.createdAt), desc(tasks.id)).limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { data: page.map(toOrder), nextCursor: rows.length > limit && last ? encodeCursor(deps.box, { c: last.createdAt, i: last.id }) : null };
}

export async function getTask(deps: AppDeps, actor: Actor, workspaceId: string, taskId: string) {
  await requireWorkspace(deps.db, actor, workspaceId, "task.read");
  return toOrder(getTaskRowOrThrow(deps.db, workspaceId, taskId));
}

export async function patchTask(deps: AppDeps, actor: Actor, workspaceId: string, taskId: string, patch: { title?: string; description?: string; data?: unknown }) {
  await requireWorkspace(deps.db, actor, workspaceId, "task.write");
  return toOrder(
    transaction(deps.db, (tx) => {
      const row = getTaskRowOrThrow(tx, workspaceId, taskId);
      if (row.status === "closed") throw new AppError("conflict", `Task ${taskId} is closed; only draft and open tasks can be edited.`);
      const at = deps.now().toISOString();
      const set = {
        ...(patch.title !== undefined ? { title: patch.title } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(patch.data !== undefined ? { data: patch.data } : {}),
        updatedAt: at,
      };
      tx.update(tasks).set(set).where(eq(tasks.id, taskId)).run();
      const changed = Object.keys(set).filter((k) => k !== "updatedAt");
      if (changed.length) addTaskActivity(tx, { taskId, kind: "edited", message: `Edited ${changed.join(", ")}`, actor: actor.label, at, data: { fields: changed } });
      return { ...row, ...set };
    }),
  );
}

export async function addTaskComment(deps: AppDeps, actor: Actor, workspaceId: string, taskId: string, body: string) {
  await requireWorkspace(deps.db, actor, workspaceId, "task.write");
  return transaction(deps.db, (tx) => {
    getTaskRowOrThrow(tx, workspaceId, taskId);
    const at = deps.now().toISOString();
    addTaskActivity(tx, { taskId, kind: "comment", message: body, actor: actor.label, at });
    const entry = tx.select().from(taskActivity).where(eq(taskActivity.taskId, taskId)).orderBy(desc(taskActivity.seq)).get()!;
    return toActivity(entry);
  });
}

type ActivityRow = typeof taskActivity.$inferSelect;
export function toActivity(r: ActivityRow) {
  return { id: r.id, at: r.at, kind: r.kind, runId: r.runId ?? null, stepIndex: r.stepIndex ?? null, message: r.message, actor: r.actor ?? null, data: r.data ?? null };
}

/** Oldest first by sequence number; the cursor is the last seq seen, so new entries append to the end. */
export async function listTaskActivity(deps: AppDeps, actor: Actor, workspaceId: string, taskId: string, q: { limit?: number; cursor?: string }) {
  await requireWorkspace(deps.db, actor, workspaceId, "task.read");
  getTaskRowOrThrow(deps.db, workspaceId, taskId);
  const limit = Math.min(Math.max(q.limit ?? 50, 1), 200);
  const after = decodeCursor(deps.box, q.cursor, { s: "number" });
  const conds: SQL[] = [eq(taskActivity.taskId, taskId)];
  if (after) conds.push(gt(taskActivity.seq, after.s));
  const rows = await deps.db.select().from(taskActivity).where(and(...conds)).orderBy(asc(taskActivity.seq)).limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { data: page.map(toActivity), nextCursor: rows.length > limit && last ? encodeCursor(deps.box, { s: last.seq }) : null };
}
