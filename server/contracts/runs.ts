/** Runs and their steps as every client sees them (DESIGN "Resource shapes"). */
import { z } from "zod";
import { RunStatusSchema } from "./automations";

export { RunStatusSchema };
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const EnvelopeSchema = z.object({
  type: z.string(),
  timestamp: z.string().describe("ISO 8601 UTC"),
  data: z.unknown(),
});

export const RunErrorSchema = z.object({ message: z.string(), nodeId: z.string().optional(), code: z.string().optional() });

export const RunSchema = z.object({
  id: z.string(),
  appId: z.string().describe("The automation id."),
  automationId: z.string(),
  version: z.number().int(),
  status: RunStatusSchema,
  trigger: z.object({
    nodeId: z.string(),
    eventId: z.string(),
    name: z.string().nullable().optional().describe("Name of the trigger node in the version that ran (null when that version is gone)."),
  }),
  taskId: z.string().nullable(),
  retryOf: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  error: RunErrorSchema.nullable(),
});
export type Run = z.infer<typeof RunSchema>;

export const StepStatusSchema = z.enum(["queued", "running", "waiting", "succeeded", "failed", "cancelled", "skipped"]);

export const StepAttemptSchema = z.object({
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  durationMs: z.number().optional(),
  error: z.string().optional(),
  retryable: z.boolean().optional(),
});

export const StepLogSchema = z.object({ at: z.string(), level: z.string(), message: z.string(), fields: z.unknown().optional() });

export const RunStepSchema = z.object({
  id: z.string(),
  nodeId: z.string(),
  name: z.string(),
  key: z.string(),
  status: StepStatusSchema,
  input: z.unknown().describe("Resolved inputs, secrets masked."),
  output: EnvelopeSchema.nullable(),
  attempts: z.array(StepAttemptSchema),
  logs: z.array(StepLogSchema),
  error: z.string().nullable(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type RunStep = z.infer<typeof RunStepSchema>;

export const RunDetailSchema = RunSchema.extend({
  event: EnvelopeSchema.nullable().describe("The trigger event envelope."),
  steps: z.array(RunStepSchema),
});
export type RunDetail = z.infer<typeof RunDetailSchema>;

export const StartRunSchema = z.strictObject({
  payload: z.record(z.string(), z.unknown()).optional().describe("Trigger event data (manual / API start): a JSON object."),
  nodeId: z.string().optional().describe("Trigger node to start from (default: the first manual trigger)."),
  eventId: z.string().optional().describe("Replay an earlier event."),
});
