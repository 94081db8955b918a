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
    runs: z.record(z.string(), z.number()).meta({ description: "Finished runs by status.", example: { succeeded: 12, failed: 1 } }),
    steps: z.record(z.string(), z.number()).meta({ description: "Node runs by status." }),
    runTimeMs: z.number().meta({ description: "Total run time in milliseconds." }),
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
