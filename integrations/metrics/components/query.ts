import { z } from "zod";
import { defineComponent } from "../../core/define";
import { ui } from "../../core/ui-meta";
import { requireConnection } from "../connection";
import { PrometheusClient } from "../prometheus-client";
import { QueryResultSchema, queryExample } from "../schemas";

export const query = defineComponent({
  key: "metrics.query",
  title: "Query",
  description: "Evaluates a PromQL expression now (instant query).",
  docs: "Calls `/api/v1/query` on the metrics server. `resultType` and `result` are exactly what Prometheus returns (sample values are strings). Invalid PromQL fails with Prometheus's own message.",
  config: z.object({
    query: z
      .string()
      .trim()
      .min(1, "Enter a PromQL expression")
      .meta(ui({ title: "Query", widget: "code", placeholder: 'up{job="node"} == 0', expression: true })),
  }),
  outputType: "metrics.query",
  output: QueryResultSchema,
  example: queryExample,
  async run(ctx) {
    const prom = new PrometheusClient(ctx.http, requireConnection(ctx.connection));
    const { data, warnings } = await prom.query(ctx.config.query);
    if (warnings.length) ctx.log.warn("Prometheus returned warnings", { warnings });
    return ctx.emit({ resultType: data.resultType, result: data.result } as z.output<typeof QueryResultSchema>);
  },
});
