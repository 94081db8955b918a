/** Intakes: trigger webhook URLs and webhook intakes that create tasks. */
import { z } from "zod";
import { IsoTimestampSchema } from "./common";

export const IntakeSchema = z
  .object({
    id: z.string(),
    kind: z.enum(["trigger", "shared", "webhook", "tracker"]),
    name: z.string(),
    appId: z.string().nullable(),
    nodeId: z.string().nullable(),
    lineId: z.string().nullable(),
    connectionId: z.string().nullable(),
    url: z.string().nullable().meta({ description: "Public URL deliveries are sent to." }),
    status: z.enum(["active", "disabled", "error"]),
    statusMessage: z.string().nullable(),
    lastEventAt: IsoTimestampSchema.nullable(),
    eventCount: z.number().int(),
    registration: z
      .object({ upstreamId: z.string(), expiresAt: z.string().nullable() })
      .nullable()
      .meta({ description: "Upstream webhook registration, when the trigger registers one." }),
    createdAt: IsoTimestampSchema,
  })
  .meta({ id: "Intake" });
export type Intake = z.infer<typeof IntakeSchema>;

export const CreateIntakeBodySchema = z
  .strictObject({
    name: z.string().trim().min(1).max(100).meta({ example: "Alert inbox" }),
    lineId: z.string().min(1).max(100),
    open: z.boolean().default(true).meta({ description: "Open created tasks right away (starting the first step)." }),
  })
  .meta({ id: "CreateIntakeBody" });
export type CreateIntakeBody = z.input<typeof CreateIntakeBodySchema>;

export const CreatedIntakeSchema = IntakeSchema.extend({
  secret: z.string().meta({ description: "Shown once: send as `Authorization: Bearer <secret>` with each POST." }),
}).meta({ id: "CreatedIntake" });
