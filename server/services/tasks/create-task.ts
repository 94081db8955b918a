/**
 * Creating tasks: by hand / API (`createTask`) and from a webhook intake (`createTaskFromIntake`,
 * called by the engine's ingress). A task created `open` starts its line's first step at once.
 */
import { and, asc, eq } from "drizzle-orm";
import { intakes, lines, tasks } from "@/db/schema";
import { transaction, type Db } from "@/db/client";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError } from "../../errors";
import { newId } from "../../ids";
import { requireWorkspace } from "../access";
import { bumpUsage } from "../usage/bump-usage";
import { addTaskActivity } from "./task-activity";
import { openTaskRow } from "./transition-task";
import { toOrder, type TaskRow } from "./to-order";

export interface NewTask {
  lineId?: string;
  title: string;
  description?: string;
  data?: unknown;
  status?: "draft" | "open";
}

function findLine(tx: Db, workspaceId: string, lineId: string | undefined) {
  if (lineId) {
    const line = tx.select().from(lines).where(and(eq(lines.id, lineId), eq(lines.workspaceId, workspaceId))).get();
    if (!line) throw new AppError("validation_failed", `Line ${lineId} does not exist in this workspace.`, [{ path: "lineId", message: "Unknown line" }]);
    return line;
  }
  const line = tx.select().from(lines).where(eq(lines.workspaceId, workspaceId)).orderBy(asc(lines.createdAt), asc(lines.id)).get();
  if (!line) throw new AppError("validation_failed", "This workspace has no line; create one first.", [{ path: "lineId", message: "Required" }]);
  return line;
}

/** Inserts the task (+ activity, + usage) inside `tx`; opens it when asked. */
export function insertTask(
  deps: AppDeps,
  tx: Db,
  workspaceId: string,
  input: NewTask,
  by: { label: string; intakeId?: string | null },
): TaskRow {
  const line = findLine(tx, workspaceId, input.lineId);
  const now = deps.now();
  const at = now.toISOString();
  const row: TaskRow = {
    id: newId("tsk"),
    workspaceId,
    lineId: line.id,
    title: input.title,
    description: input.description ?? "",
    data: input.data === undefined ? null : input.data,
    status: "draft",
    outcome: null,
    currentStep: null,
    createdBy: by.label,
    intakeId: by.intakeId ?? null,
    createdAt: at,
    updatedAt: at,
    closedAt: null,
  };
  tx.insert(tasks).values(row).run();
  addTaskActivity(tx, {
    taskId: row.id,
    kind: "created",
    message: by.intakeId ? `Created by intake ${by.intakeId}` : "Created",
    actor: by.label,
    at,
  });
  bumpUsage(tx, workspaceId, "tasks.created", 1, now);
  if (input.status === "open") return openTaskRow(deps, tx, row, by.label);
  return row;
}

export async function createTask(deps: AppDeps, actor: Actor, workspaceId: string, input: NewTask) {
  await requireWorkspace(deps.db, actor, workspaceId, "task.write");
  return toOrder(transaction(deps.db, (tx) => insertTask(deps, tx, workspaceId, input, { label: actor.label })));
}

type IntakeRow = typeof intakes.$inferSelect;

/** Turns a webhook delivery's JSON body into task fields. */
export function taskFromBody(intake: Pick<IntakeRow, "id" | "name">, body: unknown, at: Date): Pick<NewTask, "title" | "description" | "data"> {
  const obj = body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  const title = typeof obj?.title === "string" && obj.title.trim() ? obj.title.trim().slice(0, 300) : `${intake.name || "Webhook"} ${at.toISOString()}`;
  const description = typeof obj?.description === "string" ? obj.description.slice(0, 20_000) : "";
  const data = obj && "data" in obj ? obj.data : body;
  return { title, description, data };
}

/**
 * Called by the webhook ingress for an intake of kind `webhook` (already verified).
 * Runs inside `tx` when given (the ingress's transaction), else in its own.
 */
export function createTaskFromIntake(deps: AppDeps, tx: Db | null | undefined, intake: IntakeRow, body: unknown) {
  if (intake.kind !== "webhook" || !intake.lineId) throw new AppError("bad_request", `Intake ${intake.id} does not create tasks.`);
  const run = (t: Db) => {
    const now = deps.now();
    const fields = taskFromBody(intake, body, now);
    const open = (intake.config as { open?: boolean } | null)?.open !== false;
    const row = insertTask(deps, t, intake.workspaceId, { ...fields, lineId: intake.lineId!, status: open ? "open" : "draft" }, {
      label: `intake:${intake.id}`,
      intakeId: intake.id,
    });
    return toOrder(row);
  };
  return tx ? run(tx) : transaction(deps.db, run);
}
