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
  retryOf: z.string().nullable().describe("The failed run this one retries with the current version (a new run); null otherwise."),
  mode: z
    .enum(["production", "test"])
    .describe("`test`: started from the editor (or `test-runs`) at one node with earlier data; not counted as a production run, no task, no error handler."),
  test: z
    .object({ nodeId: z.string(), single: z.boolean().describe("Only that step ran (else it and everything after it).") })
    .nullable()
    .describe("Where a test run started."),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  error: RunErrorSchema.nullable(),
  workMs: z.number().optional().describe("In lists: the run's working time (see `timing.workMs` of a run fetched alone)."),
});
export type Run = z.infer<typeof RunSchema>;

export const StepStatusSchema = z.enum(["queued", "running", "waiting", "succeeded", "failed", "cancelled", "skipped"]);

export const StepAttemptSchema = z.object({
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  durationMs: z.number().optional(),
  error: z.string().optional(),
  retryable: z.boolean().optional(),
  manualRetryAt: z
    .string()
    .optional()
    .describe(
      "When someone retried the run after this attempt (set on a step's last attempt when a retry re-queued the step): the next attempt was started by hand, not by an automatic retry.",
    ),
});

export const StepLogSchema = z.object({ at: z.string(), level: z.string(), message: z.string(), fields: z.unknown().optional() });

export const StepOriginSchema = z
  .discriminatedUnion("kind", [
    z.object({ kind: z.literal("run"), runId: z.string(), stepId: z.string(), version: z.number().int() }),
    z.object({ kind: z.literal("pinned"), version: z.number().int() }),
  ])
  .nullable()
  .describe(
    "Where the output came from when the step did not run in this run: a step of an earlier run (reused by a retry, or upstream data of a test run) with the version it ran on, or the node's pinned data (test runs). Null: it ran here.",
  );

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
  origin: StepOriginSchema.optional(),
});
export type RunStep = z.infer<typeof RunStepSchema>;

export const RunTimingSchema = z.object({
  workMs: z
    .number()
    .describe("Time spent working: the durations of the attempts of the steps that ran in this run, summed (steps taken over from elsewhere excluded)."),
  retryWaitMs: z
    .number()
    .describe(
      "Time spent waiting between automatic retries: from a failed attempt to the runner's next attempt of the step (the backoff), summed over steps. The time until someone retried the run is not in it (see `manualRetryDelayMs`).",
    ),
  manualRetryDelayMs: z
    .number()
    .describe(
      "Time the run sat failed or cancelled until someone retried it, summed over its manual retries: for a retry with the original version, from the retried steps' last attempt to the retry; for a run that retries another with the current version (`retryOf`), from the retried run's end to this run's creation. 0 when it was never retried by hand.",
    ),
});

export const RunDetailSchema = RunSchema.extend({
  event: EnvelopeSchema.nullable().describe("The trigger event envelope."),
  steps: z.array(RunStepSchema),
  retriedBy: z.string().nullable().describe("The run that retried this one with the current version, if any."),
  timing: RunTimingSchema,
});
export type RunDetail = z.infer<typeof RunDetailSchema>;

export const RetryRunSchema = z.strictObject({
  version: z
    .enum(["original", "current"])
    .default("original")
    .describe(
      "`original` (default): the same run continues on the version it started on, from its failed step. `current`: a new run (`retryOf` this one) on the automation's current saved version that reuses the succeeded steps whose node still exists with the same key and runs the failed step and everything after it from the current graph.",
    ),
});

export const TestRunBodySchema = z.strictObject({
  nodeId: z.string().min(1).max(100).describe("The node to test (a component; or a trigger, to run everything after it)."),
  scope: z
    .enum(["step", "downstream"])
    .optional()
    .describe("`step` (default for a component): that step only. `downstream` (default for a trigger): it and everything after it."),
  source: z
    .enum(["auto", "pinned", "run"])
    .default("auto")
    .describe(
      "Earlier data: `auto` pinned output where a node has some, else the newest run that reached the node; `pinned` only pinned data; `run` one run only (`runId`, default the newest that fits).",
    ),
  runId: z.string().max(100).optional().describe("The run whose trigger event and outputs to use."),
});

export const StartRunSchema = z.strictObject({
  payload: z.record(z.string(), z.unknown()).optional().describe("Trigger event data (manual / API start): a JSON object."),
  nodeId: z.string().optional().describe("Trigger node to start from (default: the first manual trigger, else the first trigger)."),
  eventId: z.string().optional().describe("Replay an earlier event."),
});

export const RecentFailuresQuerySchema = z.strictObject({
  since: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({ description: "Count runs created at or after this time (ISO 8601; default: 24 hours ago). 422 when it is in the future." }),
});

export const RecentFailuresSchema = z.object({
  failed: z
    .number()
    .int()
    .meta({ description: "Production runs of the workspace that failed and were created since `since` (test runs are not counted); at most 99.", example: 3 }),
  more: z.boolean().meta({ description: "True when more runs than `failed` failed (counting stops at 100: the editor's badge shows 99+)." }),
  since: z.string().meta({ description: "Start of the window actually counted (ISO 8601 UTC).", example: "2026-11-24T16:00:00.000Z" }),
});
