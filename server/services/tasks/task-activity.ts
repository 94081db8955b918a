/** Task timeline entries, ordered by a per-task sequence number (stable pagination). */
import type { Store } from "@/db/store";
import type { NewActivity } from "@/db/stores/tasks";
import { newId } from "../../ids";

export type { NewActivity };

export async function addTaskActivity(s: Store, a: Omit<NewActivity, "at"> & { at?: string }): Promise<string> {
  const row = await s.tasks.addActivity(newId("act"), { ...a, at: a.at ?? new Date().toISOString() });
  return row.id;
}
