import { z } from "zod";
import { defineComponent } from "../core/define";
import { ui } from "../core/ui-meta";
import { parseDuration } from "./duration";

/** Pauses the branch: the step is rescheduled for later, no worker is held meanwhile. */
export const waitComponent = defineComponent({
  key: "core.wait",
  title: "Wait",
  description: "Pause this branch for a duration (no worker is held while waiting).",
  needsConnection: false,
  config: z.object({
    duration: z
      .string()
      .refine((v) => parseDuration(v) !== null, "Use a duration such as 30s, 5m, 1h30m")
      .meta(ui({ title: "Duration", placeholder: "5m", expression: true })),
  }),
  outputType: "core.wait",
  output: z.object({ waitedMs: z.number(), resumedAt: z.string() }),
  example: { waitedMs: 300000, resumedAt: "2026-01-01T00:05:00.000Z" },
  async run(ctx) {
    const ms = parseDuration(ctx.config.duration)!;
    const state = ctx.state as { until: number; from: number } | undefined;
    const now = ctx.now().getTime();
    if (!state) return ctx.wait(ms, { until: now + ms, from: now }, `waiting ${ctx.config.duration}`);
    if (now < state.until) return ctx.wait(state.until - now, state, "still waiting");
    return ctx.emit({ waitedMs: now - state.from, resumedAt: new Date(now).toISOString() });
  },
});
