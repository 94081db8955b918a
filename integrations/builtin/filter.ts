import { z } from "zod";
import { defineComponent } from "../core/define";
import { ui } from "../core/ui-meta";

/** Continues the branch only when the condition is true; otherwise the branch ends here (not a failure). */
export const filterComponent = defineComponent({
  key: "core.filter",
  title: "Filter",
  description: "Continue only when a condition is true; otherwise stop this branch.",
  needsConnection: false,
  config: z.object({
    condition: z.unknown().meta(ui({ title: "Condition", description: "e.g. {{ $trigger.data.status = 'firing' }}", expression: true })),
  }),
  outputType: "core.filter",
  output: z.object({ passed: z.literal(true) }),
  example: { passed: true },
  async run(ctx) {
    const c = ctx.config.condition;
    const truthy = Array.isArray(c) ? c.length > 0 : Boolean(c) && c !== "false";
    return truthy ? ctx.emit({ passed: true as const }) : ctx.stop("condition is false");
  },
});
