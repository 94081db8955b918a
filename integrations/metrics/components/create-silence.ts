import { z } from "zod";
import { defineComponent } from "../../core/define";
import { ui } from "../../core/ui-meta";
import { AlertmanagerClient } from "../alertmanager-client";
import { requireConnection } from "../connection";
import { DurationSchema, parseDuration } from "../duration";
import { MatcherSchema, SilenceSchema, silenceExample, toSilence } from "../schemas";

export const createSilence = defineComponent({
  key: "metrics.createSilence",
  title: "Create Silence",
  description: "Mutes alerts matching every matcher in Alertmanager for a duration.",
  docs: "POSTs `/api/v2/silences` on the alert router, starting now and ending after **Duration** (`1h`, `30m`, `2h30m`), then reads the silence back. At least one matcher must not match the empty string.",
  config: z.object({
    matchers: z
      .array(MatcherSchema)
      .min(1, "Add at least one matcher")
      .meta(ui({ title: "Matchers", description: "Alerts must match all of them", expression: true, order: 1 })),
    duration: DurationSchema.meta(ui({ title: "Duration", widget: "duration", placeholder: "1h", expression: true, order: 2 })),
    createdBy: z
      .string()
      .trim()
      .min(1)
      .meta(ui({ title: "Created By", placeholder: "conveyor", expression: true, order: 3 })),
    comment: z
      .string()
      .trim()
      .min(1)
      .meta(ui({ title: "Comment", widget: "textarea", expression: true, order: 4 })),
  }),
  outputType: "metrics.silence",
  output: SilenceSchema,
  example: silenceExample,
  async run(ctx) {
    const am = new AlertmanagerClient(ctx.http, requireConnection(ctx.connection));
    const startsAt = ctx.now();
    const endsAt = new Date(startsAt.getTime() + (parseDuration(ctx.config.duration) ?? 0));
    const silenceID = await am.createSilence({
      matchers: ctx.config.matchers,
      startsAt: startsAt.toISOString(),
      endsAt: endsAt.toISOString(),
      createdBy: ctx.config.createdBy,
      comment: ctx.config.comment,
    });
    ctx.log.info("Silence created", { silenceID });
    return ctx.emit(toSilence(await am.getSilence(silenceID)));
  },
});
