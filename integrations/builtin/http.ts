import { z } from "zod";
import { defineComponent } from "../core/define";
import { ui } from "../core/ui-meta";

/** One HTTP request through the shared client (timeouts, size cap, retry classification, metadata addresses refused). */
export const httpComponent = defineComponent({
  key: "core.http",
  title: "HTTP request",
  description: "Send an HTTP request and emit the response (4xx fails, 429/5xx/timeouts are retried).",
  needsConnection: false,
  config: z.object({
    method: z
      .enum(["GET", "POST", "PUT", "PATCH", "DELETE"])
      .default("GET")
      .meta(ui({ title: "Method" })),
    url: z.url({ protocol: /^https?$/ }).meta(ui({ title: "URL", expression: true })),
    headers: z
      .record(z.string(), z.string())
      .default({})
      .meta(ui({ title: "Headers", widget: "keyvalue", expression: true })),
    query: z
      .record(z.string(), z.string())
      .default({})
      .meta(ui({ title: "Query parameters", widget: "keyvalue", expression: true })),
    body: z
      .unknown()
      .optional()
      .meta(ui({ title: "JSON body", widget: "json", expression: true })),
    timeoutMs: z
      .number()
      .int()
      .min(100)
      .max(120_000)
      .default(15_000)
      .meta(ui({ title: "Timeout (ms)" })),
  }),
  outputType: "core.http.response",
  output: z.object({ status: z.number().int(), headers: z.record(z.string(), z.string()), body: z.unknown() }),
  example: { status: 200, headers: { "content-type": "application/json" }, body: { ok: true } },
  async run(ctx) {
    const { method, url, headers, query, body, timeoutMs } = ctx.config;
    const res = await ctx.http.request({ method, url, headers, query, json: body, timeoutMs });
    const outHeaders: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      if (!/^(set-cookie|authorization)$/i.test(k)) outHeaders[k] = v;
    });
    return ctx.emit({ status: res.status, headers: outHeaders, body: res.body });
  },
});
