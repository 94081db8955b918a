/** Reading and editing tasks, comments and the activity timeline. */
import type { TaskActivityRow } from "@/db/types";
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
  await requireWorkspace(deps.store, actor, workspaceId, "task.read");
  const limit = Math.min(Math.max(q.limit ?? 50, 1), 200);
  const after = decodeCursor(deps.box, `orders:${workspaceId}`, q.cursor, { c: "string", i: "string" });
  const rows = await deps.store.tasks.list(
    workspaceId,
    {
      lineId: q.lineId,
      status: q.status,
      createdFrom: q.createdFrom ? new Date(q.createdFrom).toISOString() : undefined,
      createdTo: q.createdTo ? new Date(q.createdTo).toISOString() : undefined,
    },
    { limit: limit + 1, after: after ? { createdAt: after.c, id: after.i } : null },
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { data: page.map(toOrder), nextCursor: rows.length > limit && last ? encodeCursor(deps.box, `orders:${workspaceId}`, { c: last.createdAt, i: last.id }) : null };
}

export async function getTask(deps: AppDeps, actor: Actor, workspaceId: string, taskId: string) {
  await requireWorkspace(deps.store, actor, workspaceId, "task.read");
  return toOrder(await getTaskRowOrThrow(deps.store, workspaceId, taskId));
}

export async function patchTask(
  deps: AppDeps,
  actor: Actor,
  workspaceId: string,
  taskId: string,
  patch: { title?: string; description?: string; data?: unknown },
) {
  await requireWorkspace(deps.store, actor, workspaceId, "task.write");
  return toOrder(
    await deps.store.tx(async (s) => {
      const row = await getTaskRowOrThrow(s, workspaceId, taskId);
      if (row.status === "closed") throw new AppError("conflict", `Task ${taskId} is closed; only draft and open tasks can be edited.`);
      const at = deps.now().toISOString();
      const set = {
        ...(patch.title !== undefined ? { title: patch.title } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(patch.data !== undefined ? { data: patch.data } : {}),
        updatedAt: at,
      };
      await s.tasks.update(taskId, set);
      const changed = Object.keys(set).filter((k) => k !== "updatedAt");
      if (changed.length)
        await addTaskActivity(s, { taskId, kind: "edited", message: `Edited ${changed.join(", ")}`, actor: actor.label, at, data: { fields: changed } });
      return { ...row, ...set };
    }),
  );
}

export async function addTaskComment(deps: AppDeps, actor: Actor, workspaceId: string, taskId: string, body: string) {
  await requireWorkspace(deps.store, actor, workspaceId, "task.write");
  return deps.store.tx(async (s) => {
    await getTaskRowOrThrow(s, workspaceId, taskId);
    const at = deps.now().toISOString();
    await addTaskActivity(s, { taskId, kind: "comment", message: body, actor: actor.label, at });
    return toActivity((await s.tasks.lastActivity(taskId))!);
  });
}

export function toActivity(r: TaskActivityRow) {
  return {
    id: r.id,
    at: r.at,
    kind: r.kind,
    runId: r.runId ?? null,
    stepIndex: r.stepIndex ?? null,
    message: r.message,
    actor: r.actor ?? null,
    data: r.data ?? null,
  };
}

/**
 * Oldest first by sequence number; the cursor is the last seq seen, so new entries append to the end.
 * `after` (an entry id) starts after that entry: a follower polls with the id of the last entry it has,
 * since the last page's `nextCursor` is null.
 */
export async function listTaskActivity(
  deps: AppDeps,
  actor: Actor,
  workspaceId: string,
  taskId: string,
  q: { limit?: number; cursor?: string; after?: string },
) {
  await requireWorkspace(deps.store, actor, workspaceId, "task.read");
  await getTaskRowOrThrow(deps.store, workspaceId, taskId);
  const limit = Math.min(Math.max(q.limit ?? 50, 1), 200);
  if (q.after !== undefined && q.cursor) {
    throw new AppError("validation_failed", "Send either `cursor` (the next page) or `after` (the entries after one you have), not both.", [
      { path: "after", message: "Not together with cursor" },
    ]);
  }
  let afterSeq = decodeCursor(deps.box, `activity:${taskId}`, q.cursor, { s: "number" })?.s;
  if (q.after !== undefined) {
    afterSeq = await deps.store.tasks.activitySeq(taskId, q.after);
    if (afterSeq === undefined) {
      throw new AppError("validation_failed", `Entry ${q.after} is not in the timeline of task ${taskId}; pass the \`id\` of one of its entries.`, [
        { path: "after", message: "Not an entry of this task's timeline" },
      ]);
    }
  }
  const rows = await deps.store.tasks.activity(taskId, { limit: limit + 1, afterSeq });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { data: page.map(toActivity), nextCursor: rows.length > limit && last ? encodeCursor(deps.box, `activity:${taskId}`, { s: last.seq }) : null };
}
