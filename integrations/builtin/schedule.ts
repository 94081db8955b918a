import { Cron } from "croner";
import { z } from "zod";
import { defineTrigger } from "../core/define";
import { ui } from "../core/ui-meta";

function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const config = z.object({
  cron: z
    .string()
    .min(1)
    .meta(ui({ title: "Cron expression", description: "e.g. */5 * * * * (every 5 minutes); seconds field optional.", placeholder: "0 9 * * 1-5" })),
  timezone: z
    .string()
    .default("UTC")
    .refine(validTimezone, "Unknown time zone")
    .meta(ui({ title: "Time zone", placeholder: "Europe/Paris" })),
});

/** Starts a run on a cron schedule (croner), evaluated in the given time zone. */
export const scheduleTrigger = defineTrigger({
  key: "core.schedule",
  title: "Schedule",
  description: "Start a run on a cron schedule in a time zone.",
  delivery: "schedule",
  needsConnection: false,
  config,
  outputType: "core.schedule",
  output: z.object({ scheduledAt: z.string(), cron: z.string(), timezone: z.string() }),
  example: { scheduledAt: "2026-01-05T09:00:00.000Z", cron: "0 9 * * 1-5", timezone: "UTC" },
  validate(cfg) {
    try {
      new Cron(cfg.cron, { timezone: cfg.timezone, paused: true });
      return [];
    } catch (e) {
      return [{ path: "cron", message: (e as Error).message }];
    }
  },
  nextFireAt(cfg, after) {
    return new Cron(cfg.cron, { timezone: cfg.timezone, paused: true }).nextRun(after) ?? null;
  },
  match: () => [],
});
