/**
 * Creating tasks: by hand / API (`createTask`) and from a webhook intake (`createTaskFromIntake`,
 * called by the engine's ingress). A task created `open` starts its line's first step at once.
 */
import type { Store } from "@/db/store";
import type { IntakeRow } from "@/db/types";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError } from "../../errors";
import { newId } from "../../ids";
import { requireWorkspace } from "../access";
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

async function findLine(s: Store, workspaceId: string, lineId: string | undefined) {
  const line = await s.tasks.line(workspaceId, lineId);
  if (!line && lineId)
    throw new AppError("validation_failed", `Line ${lineId} does not exist in this workspace.`, [{ path: "lineId", message: "Unknown line" }]);
  if (!line) throw new AppError("validation_failed", "This workspace has no line; create one first.", [{ path: "lineId", message: "Required" }]);
  return line;
}

/** Inserts the task (+ activity, + usage) in `s`'s transaction; opens it when asked. */
export async function insertTask(
  deps: AppDeps,
  s: Store,
  workspaceId: string,
  input: NewTask,
  by: { label: string; intakeId?: string | null },
): Promise<TaskRow> {
  const line = await findLine(s, workspaceId, input.lineId);
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
    activitySeq: 0,
  };
  await s.tasks.insert(row);
  await addTaskActivity(s, {
    taskId: row.id,
    kind: "created",
    message: by.intakeId ? `Created by intake ${by.intakeId}` : "Created",
    actor: by.label,
    at,
  });
  await s.usage.bump(workspaceId, "tasks.created", 1, now);
  if (input.status === "open") return openTaskRow(deps, s, row, by.label);
  return row;
}

export async function createTask(deps: AppDeps, actor: Actor, workspaceId: string, input: NewTask) {
  await requireWorkspace(deps.store, actor, workspaceId, "task.write");
  return toOrder(await deps.store.tx((s) => insertTask(deps, s, workspaceId, input, { label: actor.label })));
}

/** Turns a webhook delivery's JSON body into task fields. */
export function taskFromBody(intake: Pick<IntakeRow, "id" | "name">, body: unknown, at: Date): Pick<NewTask, "title" | "description" | "data"> {
  const obj = body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  const title = typeof obj?.title === "string" && obj.title.trim() ? obj.title.trim().slice(0, 300) : `${intake.name || "Webhook"} ${at.toISOString()}`;
  const description = typeof obj?.description === "string" ? obj.description.slice(0, 20_000) : "";
  const data = obj && "data" in obj ? obj.data : body;
  return { title, description, data };
}

/**
 * Called by the webhook ingress for an intake of kind `webhook` (already verified), in `s`'s
 * transaction (the ingress's, with the delivery's dedupe record).
 */
export async function createTaskFromIntake(
  deps: AppDeps,
  s: Store,
  intake: Pick<IntakeRow, "id" | "kind" | "name" | "lineId" | "workspaceId" | "config">,
  body: unknown,
) {
  if (intake.kind !== "webhook" || !intake.lineId) throw new AppError("bad_request", `Intake ${intake.id} does not create tasks.`);
  const now = deps.now();
  const fields = taskFromBody(intake, body, now);
  const open = (intake.config as { open?: boolean } | null)?.open !== false;
  const row = await insertTask(
    deps,
    s,
    intake.workspaceId,
    { ...fields, lineId: intake.lineId, status: open ? "open" : "draft" },
    {
      label: `intake:${intake.id}`,
      intakeId: intake.id,
    },
  );
  return toOrder(row);
}
