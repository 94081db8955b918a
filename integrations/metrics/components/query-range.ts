import { z } from "zod";
import { defineComponent } from "../../core/define";
import { NonRetryableError } from "../../core/errors";
import { ui } from "../../core/ui-meta";
import { requireConnection } from "../connection";
import { QueryTimeSchema, StepSchema, parseQueryTime, parseStep } from "../duration";
import { PrometheusClient } from "../prometheus-client";
import { RangeQueryResultSchema, rangeQueryExample } from "../schemas";

const TIME_HELP = "RFC 3339 (2024-05-01T10:00:00Z), Unix seconds, now or now-1h";

export const queryRange = defineComponent({
  key: "metrics.queryRange",
  title: "Query Range",
  description: "Evaluates a PromQL expression over a time range (defaults to the last hour).",
  docs: "Calls `/api/v1/query_range`. Start/End accept RFC 3339, Unix seconds, `now` and `now-<duration>`. Prometheus returns at most 11,000 points per series: a longer range needs a larger step.",
  config: z.object({
    query: z
      .string()
      .trim()
      .min(1, "Enter a PromQL expression")
      .meta(ui({ title: "Query", widget: "code", placeholder: "rate(http_requests_total[5m])", expression: true, order: 1 })),
    start: QueryTimeSchema.default("now-1h").meta(ui({ title: "Start", description: TIME_HELP, expression: true, order: 2 })),
    end: QueryTimeSchema.default("now").meta(ui({ title: "End", description: TIME_HELP, expression: true, order: 3 })),
    step: StepSchema.default("1m").meta(ui({ title: "Step", description: "Resolution, e.g. 15s or 1m", expression: true, order: 4 })),
  }),
  outputType: "metrics.queryRange",
  output: RangeQueryResultSchema,
  example: rangeQueryExample,
  async run(ctx) {
    const now = ctx.now();
    const start = parseQueryTime(ctx.config.start, now);
    const end = parseQueryTime(ctx.config.end, now);
    const step = parseStep(ctx.config.step);
    if (start === null || end === null || step === null) throw new NonRetryableError("Start, End and Step must be valid");
    if (end < start) throw new NonRetryableError(`End (${ctx.config.end}) is before Start (${ctx.config.start})`);
    const prom = new PrometheusClient(ctx.http, requireConnection(ctx.connection));
    const { data, warnings } = await prom.queryRange(ctx.config.query, start, end, step);
    if (warnings.length) ctx.log.warn("Prometheus returned warnings", { warnings });
    return ctx.emit({ resultType: data.resultType, result: data.result } as z.output<typeof RangeQueryResultSchema>);
  },
});
