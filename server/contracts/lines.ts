/** Lines: ordered steps, each naming an automation. */
import { z } from "zod";
import { IsoTimestampSchema } from "./common";
import { ResourceKeySchema } from "./as-code";

export const LineStepSchema = z.strictObject({
  name: z.string().trim().min(1).max(100).meta({ example: "Triage" }),
  appId: z.string().min(1).max(100).meta({ description: "Automation run for this step.", example: "aut_0a1b2c3d4e5f6g7h" }),
});

export const LineSchema = z
  .object({
    id: z.string().meta({ example: "lin_0a1b2c3d4e5f6g7h" }),
    key: z.string().nullable().meta({
      description: "Stable key, unique in the workspace (null for lines made before keys existed, until the next apply).",
      example: "incident-follow-up",
    }),
    name: z.string().meta({ example: "Incident follow-up" }),
    steps: z
      .array(z.object({ name: z.string(), appId: z.string() }))
      .meta({ description: "Run in order; a task advances when a step's run succeeds.", example: [{ name: "Triage", appId: "aut_0a1b2c3d4e5f6g7h" }] }),
    openTasks: z.number().int().meta({ description: "Tasks on the line that are not closed (draft or open)." }),
    createdAt: IsoTimestampSchema,
    updatedAt: IsoTimestampSchema,
  })
  .meta({ id: "Line", description: "An assembly line: a task placed on it runs each step's automation in turn." });
export type Line = z.infer<typeof LineSchema>;

export const CreateLineBodySchema = z
  .strictObject({
    name: z.string().trim().min(1).max(100).meta({ example: "Incident follow-up" }),
    key: ResourceKeySchema.optional().meta({ description: "Stable key; derived from the name when not given." }),
    steps: z.array(LineStepSchema).max(50).default([]),
  })
  .meta({ id: "CreateLineBody" });
export type CreateLineBody = z.input<typeof CreateLineBodySchema>;

export const UpdateLineBodySchema = z
  .strictObject({
    name: z.string().trim().min(1).max(100).optional(),
    key: ResourceKeySchema.optional(),
    steps: z.array(LineStepSchema).max(50).optional().meta({ description: "Replaces the whole ordered list." }),
  })
  .meta({ id: "UpdateLineBody" });
export type UpdateLineBody = z.input<typeof UpdateLineBodySchema>;
