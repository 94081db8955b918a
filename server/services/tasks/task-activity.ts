/** Task timeline entries, ordered by a per-task sequence number (stable pagination). */
import type { Db } from "@/db/client";
import { newId } from "../../ids";

export interface NewActivity {
  taskId: string;
  kind: string;
  message?: string;
  actor?: string | null;
  at?: string;
  runId?: string | null;
  stepIndex?: number | null;
  data?: Record<string, unknown> | null;
}

export function addTaskActivity(tx: Db, a: NewActivity): string {
  const id = newId("act");
  const c = tx.$client;
  const next = (c.prepare("select coalesce(max(seq), 0) + 1 as n from task_activity where task_id = ?").get(a.taskId) as { n: number }).n;
  c.prepare(
    "insert into task_activity (id, task_id, seq, at, kind, run_id, step_index, message, actor, data) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  ).run(id, a.taskId, next, a.at ?? new Date().toISOString(), a.kind, a.runId ?? null, a.stepIndex ?? null, a.message ?? "", a.actor ?? null, a.data ? JSON.stringify(a.data) : null);
  return id;
}
