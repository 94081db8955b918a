/** Tasks ("orders" in paths), their transitions, comments and activity. */
import { z } from "zod";
import { IsoTimestampSchema, PaginationQuerySchema } from "./common";

export const TaskStatusSchema = z.enum(["draft", "open", "closed"]);
export const TaskOutcomeSchema = z.enum(["completed", "rejected", "failed"]);

const JsonData = z.unknown().meta({ description: "Any JSON value; steps see it as the task's data.", example: { alert: "DiskFull", host: "db1" } });

export const OrderSchema = z
  .object({
    id: z.string().meta({ example: "tsk_0a1b2c3d4e5f6g7h" }),
    title: z.string(),
    description: z.string(),
    data: JsonData,
    lineId: z.string(),
    status: TaskStatusSchema,
    outcome: TaskOutcomeSchema.nullable(),
    currentStep: z.number().int().nullable().meta({ description: "Index of the line step being (or last) run; null before opening." }),
    intakeId: z.string().nullable(),
    createdBy: z.string().nullable(),
    createdAt: IsoTimestampSchema,
    updatedAt: IsoTimestampSchema,
    closedAt: IsoTimestampSchema.nullable(),
  })
  .meta({ id: "Order", description: "A task: a work order moving along a line." });
export type Order = z.infer<typeof OrderSchema>;

export const ListOrdersQuerySchema = PaginationQuerySchema.extend({
  lineId: z.string().max(100).optional().meta({ description: "Only tasks on this line." }),
  status: TaskStatusSchema.optional(),
  createdFrom: z.iso.datetime({ offset: true }).optional().meta({ description: "Created at or after (ISO 8601)." }),
  createdTo: z.iso.datetime({ offset: true }).optional().meta({ description: "Created before (ISO 8601)." }),
});
export type ListOrdersQuery = z.output<typeof ListOrdersQuerySchema>;

export const CreateOrderBodySchema = z
  .strictObject({
    lineId: z.string().min(1).max(100).optional().meta({ description: "Line to place the task on (default: the workspace's first line)." }),
    title: z.string().trim().min(1).max(300).meta({ example: "Disk full on db1" }),
    description: z.string().max(20_000).default(""),
    data: JsonData.optional(),
    status: z.enum(["draft", "open"]).default("draft").meta({ description: "`open` starts the first step right away." }),
  })
  .meta({ id: "CreateOrderBody" });
export type CreateOrderBody = z.input<typeof CreateOrderBodySchema>;

export const PatchOrderBodySchema = z
  .strictObject({
    title: z.string().trim().min(1).max(300).optional(),
    description: z.string().max(20_000).optional(),
    data: JsonData.optional(),
  })
  .meta({ id: "PatchOrderBody", description: "Allowed while the task is draft or open." });
export type PatchOrderBody = z.input<typeof PatchOrderBodySchema>;

export const TransitionBodySchema = z
  .discriminatedUnion("action", [
    z.strictObject({ action: z.literal("open") }),
    z.strictObject({
      action: z.literal("close"),
      outcome: z.enum(["completed", "rejected"]),
      comment: z.string().max(20_000).optional(),
    }),
    z.strictObject({ action: z.literal("retry").meta({ description: "Re-run the failed step of a failed task." }) }),
  ])
  .meta({ id: "OrderTransition", example: { action: "close", outcome: "completed" } });
export type TransitionBody = z.infer<typeof TransitionBodySchema>;

export const CommentBodySchema = z
  .strictObject({ body: z.string().trim().min(1).max(20_000).meta({ example: "Looked at it; disk cleaned." }) })
  .meta({ id: "CommentBody" });

export const ActivityEntrySchema = z
  .object({
    id: z.string(),
    at: IsoTimestampSchema,
    kind: z.string().meta({ description: "created, opened, step_started, step_finished, comment, closed, …", example: "step_finished" }),
    runId: z.string().nullable(),
    stepIndex: z.number().int().nullable(),
    message: z.string(),
    actor: z.string().nullable(),
    data: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: "ActivityEntry" });
export type ActivityEntry = z.infer<typeof ActivityEntrySchema>;
