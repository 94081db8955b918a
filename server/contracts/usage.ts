/** Usage report. */
import { z } from "zod";
import { IsoTimestampSchema } from "./common";

export const UsageQuerySchema = z
  .strictObject({
    from: z.iso.datetime({ offset: true }).optional().meta({ description: "Window start (default: `to` minus 30 days)." }),
    to: z.iso.datetime({ offset: true }).optional().meta({ description: "Window end, exclusive (default: now)." }),
    granularity: z.enum(["day", "hour"]).default("day"),
  })
  .meta({ description: "The window may span at most 90 days." });
export type UsageQuery = z.output<typeof UsageQuerySchema>;

export const UsageTotalsSchema = z
  .object({
    runs: z.record(z.string(), z.number()).meta({
      description:
        "Finished production runs by their latest outcome: a retried run is one run (counted in the hour of its latest end), its retries are in `retries`.",
      example: { succeeded: 12, failed: 1 },
    }),
    steps: z.record(z.string(), z.number()).meta({ description: "Node runs of production runs by status." }),
    runTimeMs: z.number().meta({
      description:
        "Working time of production runs in milliseconds: the time their steps spent running, summed over steps (the waits between automatic retries are in `retryWaitMs`).",
    }),
    retries: z.number().meta({ description: "Retries of finished runs (each is another attempt of the same run, not a new run)." }),
    retryWaitMs: z.number().meta({
      description:
        "Time waited between automatic retries of steps of production runs (the backoff from a failed attempt to the runner's next attempt), in milliseconds. The time until someone retried a failed run by hand is not counted.",
    }),
    testRuns: z.record(z.string(), z.number()).meta({ description: "Test runs (started from the editor at one node) by status; not counted in `runs`." }),
    eventsReceived: z.number(),
    tasksCreated: z.number(),
    tasksClosed: z.number(),
    apiCalls: z.number(),
  })
  .meta({ id: "UsageTotals" });

export const UsageReportSchema = z
  .object({
    from: IsoTimestampSchema,
    to: IsoTimestampSchema,
    granularity: z.enum(["day", "hour"]),
    totals: UsageTotalsSchema,
    buckets: z.array(z.object({ start: IsoTimestampSchema }).extend(UsageTotalsSchema.shape)).meta({ description: "One entry per bucket with any activity." }),
  })
  .meta({ id: "UsageReport" });
export type UsageReport = z.infer<typeof UsageReportSchema>;
