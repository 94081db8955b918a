import type { TaskRow as StoredTask } from "@/db/types";
import type { Order } from "@/server/contracts/orders";

export type TaskRow = StoredTask;

/** The task as every client sees it ("order" in REST). */
export function toOrder(row: TaskRow): Order {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    data: row.data ?? null,
    lineId: row.lineId,
    status: row.status,
    outcome: row.outcome ?? null,
    currentStep: row.currentStep ?? null,
    intakeId: row.intakeId ?? null,
    createdBy: row.createdBy ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    closedAt: row.closedAt ?? null,
  };
}
