import { z } from "zod";
import { defineComponent } from "../../core/define";
import { NonRetryableError } from "../../core/errors";
import { ui } from "../../core/ui-meta";
import { requireConnection } from "../connection";
import { PrometheusClient, type PromAlert } from "../prometheus-client";
import { PromAlertSchema, promAlertExample } from "../schemas";

/** Prometheus reports no start or value for an alerting rule that is not active. */
const ZERO_TIME = "0001-01-01T00:00:00Z";

export const getAlert = defineComponent({
  key: "metrics.getAlert",
  title: "Get Alert",
  description: "Reads the first Prometheus alert whose alertname matches, optionally in a given state.",
  docs: "Active alerts (pending, firing) come from `/api/v1/alerts`. `inactive` alerting rules are not listed there, so that state (and `any` when no alert is active) is read from `/api/v1/rules?type=alert`. Fails when nothing matches.",
  config: z.object({
    alertName: z
      .string()
      .trim()
      .min(1, "Enter an alert name")
      .meta(ui({ title: "Alert Name", description: "Matched against the alertname label", expression: true })),
    state: z
      .enum(["any", "firing", "pending", "inactive"])
      .default("any")
      .meta(ui({ title: "State", widget: "select", enumLabels: { any: "Any", firing: "Firing", pending: "Pending", inactive: "Inactive" } })),
  }),
  outputType: "metrics.alert",
  output: PromAlertSchema,
  example: promAlertExample,
  async run(ctx) {
    const { alertName, state } = ctx.config;
    const prom = new PrometheusClient(ctx.http, requireConnection(ctx.connection));
    if (state !== "inactive") {
      const { data } = await prom.alerts();
      const hit = (data.alerts ?? []).find((a) => a.labels?.alertname === alertName && (state === "any" || a.state === state));
      if (hit) return ctx.emit(fromActive(hit));
    }
    if (state === "inactive" || state === "any") {
      const { data } = await prom.rules();
      const rule = (data.groups ?? [])
        .flatMap((g) => g.rules ?? [])
        .find((r) => r.type === "alerting" && r.name === alertName && (r.state === "inactive" || (state === "any" && r.state !== undefined)));
      if (rule) {
        const active = rule.alerts?.[0];
        if (active && state === "any") return ctx.emit(fromActive(active));
        if (rule.state === "inactive") {
          return ctx.emit({
            annotations: rule.annotations ?? {},
            labels: { alertname: rule.name, ...(rule.labels ?? {}) },
            startsAt: ZERO_TIME,
            status: "inactive",
            value: "",
          });
        }
      }
    }
    throw new NonRetryableError(
      state === "any"
        ? `No alert named "${alertName}" in Prometheus (no active alert and no alerting rule with that name)`
        : `No ${state} alert named "${alertName}" in Prometheus`,
    );
  },
});

function fromActive(a: PromAlert) {
  return {
    annotations: a.annotations ?? {},
    labels: a.labels ?? {},
    startsAt: a.activeAt ?? ZERO_TIME,
    status: a.state,
    value: a.value ?? "",
  };
}
