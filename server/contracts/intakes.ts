/** Intakes: trigger webhook URLs and webhook intakes that create tasks. */
import { z } from "zod";
import { IsoTimestampSchema } from "./common";
import { ResourceKeySchema } from "./as-code";
import { MAX_SIGNATURE_TOLERANCE_S, MIN_SIGNATURE_TOLERANCE_S } from "@/integrations/core/signed-delivery";

const RequireTimestampSchema = z.boolean().meta({
  description:
    'Accept only timestamped signatures, `X-Conveyor-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, each once (a replay is refused); a bearer secret or a body-only `sha256=` signature is then refused (401). Off: all three are accepted (timestamped ones are still checked for time and replays).',
});
const ToleranceSchema = z
  .number()
  .int()
  .min(MIN_SIGNATURE_TOLERANCE_S)
  .max(MAX_SIGNATURE_TOLERANCE_S)
  .nullable()
  .meta({
    description:
      "How far a timestamped signature's `t` may be from the server's clock, in seconds; null: the installation's (`CONVEYOR_WEBHOOK_SIGNATURE_TOLERANCE_S`, 300).",
  });

export const IntakeSignatureSchema = z
  .object({ requireTimestampedSignature: RequireTimestampSchema, signatureToleranceSeconds: ToleranceSchema })
  .meta({ id: "IntakeSignature" });

export const IntakeSchema = z
  .object({
    id: z.string().meta({ example: "int_0a1b2c3d4e5f6g7h" }),
    kind: z.enum(["trigger", "shared", "webhook", "tracker"]).meta({
      description:
        "`trigger`: the webhook URL of a trigger node; `shared`: one upstream registration shared by a connection's triggers; `webhook`: creates tasks on a line; `tracker`: tracker project intake.",
    }),
    key: z.string().nullable().meta({ description: "Stable key of a webhook intake, unique in the workspace (null for trigger intakes)." }),
    name: z.string(),
    appId: z.string().nullable().meta({ description: "Automation of a trigger intake." }),
    nodeId: z.string().nullable().meta({ description: "Trigger node of a trigger intake." }),
    lineId: z.string().nullable().meta({ description: "Line that a webhook intake places tasks on." }),
    connectionId: z.string().nullable(),
    url: z.string().nullable().meta({ description: "Public URL deliveries are sent to." }),
    status: z.enum(["active", "disabled", "error"]),
    statusMessage: z.string().nullable().meta({ description: "Why the intake is in error (e.g. an upstream registration failed)." }),
    lastEventAt: IsoTimestampSchema.nullable(),
    eventCount: z.number().int().meta({ description: "Deliveries accepted so far." }),
    refusedCount: z.number().int().meta({
      description:
        "Deliveries refused so far with a 4xx (a wrong secret, a body that is not JSON or not the expected shape…); written at most every 5 s per process.",
    }),
    lastRefused: z
      .object({ at: IsoTimestampSchema, status: z.number().int(), code: z.string(), detail: z.string() })
      .nullable()
      .meta({ description: "The latest refused delivery: when, the status answered, and what the sender was told." }),
    registration: z
      .object({ upstreamId: z.string(), expiresAt: z.string().nullable() })
      .nullable()
      .meta({ description: "Upstream webhook registration, when the trigger registers one." }),
    signature: IntakeSignatureSchema.nullable().meta({
      description: "How deliveries to a webhook intake must be signed (null for trigger intakes: a `core.webhook` node's settings say it).",
    }),
    createdAt: IsoTimestampSchema,
  })
  .meta({ id: "Intake" });
export type Intake = z.infer<typeof IntakeSchema>;

export const CreateIntakeBodySchema = z
  .strictObject({
    name: z.string().trim().min(1).max(100).meta({ example: "Alert inbox" }),
    key: ResourceKeySchema.optional().meta({ description: "Stable key; derived from the name when not given." }),
    lineId: z.string().min(1).max(100),
    open: z.boolean().default(true).meta({ description: "Open created tasks right away (starting the first step)." }),
    requireTimestampedSignature: RequireTimestampSchema.default(false),
    signatureToleranceSeconds: ToleranceSchema.optional(),
  })
  .meta({ id: "CreateIntakeBody" });
export type CreateIntakeBody = z.input<typeof CreateIntakeBodySchema>;

export const UpdateIntakeBodySchema = z
  .strictObject({ requireTimestampedSignature: RequireTimestampSchema.optional(), signatureToleranceSeconds: ToleranceSchema.optional() })
  .meta({ id: "UpdateIntakeBody" });
export type UpdateIntakeBody = z.input<typeof UpdateIntakeBodySchema>;

export const CreatedIntakeSchema = IntakeSchema.extend({
  secret: z.string().meta({
    description:
      'Shown once. Sign each POST with it: `X-Conveyor-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`; unless the intake requires that, `Authorization: Bearer <secret>` or `X-Conveyor-Signature: sha256=<hex HMAC-SHA256 of the raw body>` is accepted too.',
  }),
}).meta({ id: "CreatedIntake" });

/**
 * What a webhook intake accepts (POST /hooks/<token>): a JSON object; `title` and `description`
 * become the task's, `data` (or, without it, the whole object) becomes the task's data.
 */
export const IntakeDeliverySchema = z
  .object({
    title: z.string().trim().min(1, "Empty; leave it out for a generated title").max(300).optional(),
    description: z.string().max(20_000).optional(),
    data: z.unknown().optional(),
  })
  .catchall(z.unknown())
  .meta({ id: "IntakeDelivery" });
