/** Tasks ("orders" in paths), their transitions, comments and activity. */
import { z } from "zod";
import { IsoTimestampSchema, PaginationQuerySchema } from "./common";

export const TaskStatusSchema = z.enum(["draft", "open", "closed"]);
export const TaskOutcomeSchema = z.enum(["completed", "rejected", "failed"]);

const JsonData = z.unknown().meta({ description: "Any JSON value; steps see it as the task's data.", example: { alert: "DiskFull", host: "db1" } });

export const OrderSchema = z
  .object({
    id: z.string().meta({ example: "tsk_0a1b2c3d4e5f6g7h" }),
    title: z.string().meta({ example: "Disk full on db1" }),
    description: z.string().meta({ description: "Free text (may be empty)." }),
    data: JsonData,
    lineId: z.string().meta({ description: "The line the task moves along.", example: "lin_0a1b2c3d4e5f6g7h" }),
    status: TaskStatusSchema.meta({ description: "`draft` → `open` → `closed`." }),
    outcome: TaskOutcomeSchema.nullable().meta({
      description: "Set when closed: `completed`, `rejected` or `failed` (a step's run failed; `retry` re-runs it).",
    }),
    currentStep: z.number().int().nullable().meta({ description: "Index of the line step being (or last) run; null before opening." }),
    intakeId: z.string().nullable().meta({ description: "The webhook intake that created the task, if any." }),
    createdBy: z.string().nullable().meta({ description: "Who created it: `user:<email>`, `api-key:<prefix> (<name>)` or `intake:<id>`." }),
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

/** A task's timeline: a page with `cursor`, or everything after an entry the caller already has (`after`), for following a task. */
export const ListActivityQuerySchema = PaginationQuerySchema.extend({
  after: z.string().min(1).max(100).optional().meta({
    description:
      "Only the entries after this one (the `id` of an entry of this task's timeline), oldest first. Follow a task by polling with the `id` of the last entry seen: `nextCursor` is null on the last page, `after` is not. Not together with `cursor`.",
    example: "act_0a1b2c3d4e5f6g7h",
  }),
});

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
    runId: z.string().nullable().meta({ description: "The step's run (step_started / step_finished)." }),
    stepIndex: z.number().int().nullable().meta({ description: "0-based index of the line step." }),
    message: z.string().meta({ example: 'Step 1 "triage" started' }),
    actor: z.string().nullable().meta({ description: "Who did it (user, API key prefix, intake or `runner`); never a secret." }),
    data: z.record(z.string(), z.unknown()).nullable().meta({ description: "Details, e.g. `{ outcome }` on closed or the run status on step_finished." }),
  })
  .meta({ id: "ActivityEntry" });
export type ActivityEntry = z.infer<typeof ActivityEntrySchema>;
