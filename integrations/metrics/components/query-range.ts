import { z } from "zod";
import { defineComponent } from "../../core/define";
import { NonRetryableError } from "../../core/errors";
import { ui } from "../../core/ui-meta";
import { requireConnection } from "../connection";
import { parseQueryTime, parseStep, queryTimeSchema, stepSchema } from "../duration";
import { PrometheusClient } from "../prometheus-client";
import { RangeQueryResultSchema, rangeQueryExample } from "../schemas";

const TIME_HELP = "RFC 3339 (2024-05-01T10:00:00Z), Unix seconds, now or now-1h";

export const queryRange = defineComponent({
  key: "metrics.queryRange",
  title: "Query Range",
  description: "Evaluates a PromQL expression over a time range.",
  docs: "Calls `/api/v1/query_range`. Start, End and Step are required (a new node starts with the last hour at a 1m step). Start/End accept RFC 3339, Unix seconds, `now` and `now-<duration>`. Prometheus returns at most 11,000 points per series: a longer range needs a larger step.",
  config: z.object({
    query: z
      .string()
      .trim()
      .min(1, "Enter a PromQL expression")
      .meta(ui({ title: "Query", widget: "code", placeholder: "rate(http_requests_total[5m])", expression: true, order: 1 })),
    start: queryTimeSchema("Start").meta(ui({ title: "Start", description: TIME_HELP, expression: true, prefill: "now-1h", order: 2 })),
    end: queryTimeSchema("End").meta(ui({ title: "End", description: TIME_HELP, expression: true, prefill: "now", order: 3 })),
    step: stepSchema("Step").meta(ui({ title: "Step", description: "Resolution, e.g. 15s or 1m", expression: true, prefill: "1m", order: 4 })),
  }),
  // Start, End and Step are required by the spec; versions saved while they defaulted keep running as before.
  legacyDefaults: { start: "now-1h", end: "now", step: "1m" },
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
