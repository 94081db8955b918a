/** Output schemas (event `data`) of the metrics components and trigger, with their examples. */
import { z } from "zod";
import { ui } from "../core/ui-meta";
import type { AmSilence } from "./alertmanager-client";

const StringMap = z.record(z.string(), z.string());

export const MatcherSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1)
    .meta(ui({ title: "Name", expression: true })),
  value: z.string().meta(ui({ title: "Value", expression: true })),
  isRegex: z
    .boolean()
    .default(false)
    .meta(ui({ title: "Is Regex" })),
  isEqual: z
    .boolean()
    .default(true)
    .meta(ui({ title: "Is Equal" })),
});

export const SilenceSchema = z.object({
  silenceID: z.string(),
  status: z.string().meta(ui({ description: "active, pending or expired" })),
  matchers: z.array(z.object({ name: z.string(), value: z.string(), isRegex: z.boolean(), isEqual: z.boolean() })),
  startsAt: z.string(),
  endsAt: z.string(),
  createdBy: z.string(),
  comment: z.string(),
});
export type Silence = z.output<typeof SilenceSchema>;

export function toSilence(s: AmSilence): Silence {
  return {
    silenceID: s.id,
    status: s.status?.state ?? "unknown",
    matchers: (s.matchers ?? []).map((m) => ({ name: m.name, value: m.value, isRegex: Boolean(m.isRegex), isEqual: m.isEqual ?? true })),
    startsAt: s.startsAt,
    endsAt: s.endsAt,
    createdBy: s.createdBy,
    comment: s.comment,
  };
}

export const silenceExample: Silence = {
  silenceID: "996cc6d7-5949-490e-bc87-a68b57ff9665",
  status: "active",
  matchers: [{ name: "alertname", value: "AlwaysFiring", isRegex: false, isEqual: true }],
  startsAt: "2026-11-22T03:51:56.249Z",
  endsAt: "2026-11-22T04:51:56.000Z",
  createdBy: "conveyor",
  comment: "Silenced while the incident is handled",
};

export const ExpiredSilenceSchema = z.object({ silenceID: z.string(), status: z.string() });

/** `metrics.alert` from Get Alert. */
export const PromAlertSchema = z.object({
  annotations: StringMap,
  labels: StringMap,
  startsAt: z.string().meta(ui({ description: "activeAt of the alert; the zero timestamp for an inactive rule" })),
  status: z.string().meta(ui({ description: "firing, pending or inactive" })),
  value: z.string().meta(ui({ description: "Value of the alert expression (empty for an inactive rule)" })),
});

export const promAlertExample: z.input<typeof PromAlertSchema> = {
  annotations: { summary: "High request rate" },
  labels: { alertname: "HighRequestRate", severity: "warning" },
  startsAt: "2026-11-22T03:51:43.384Z",
  status: "firing",
  value: "1e+00",
};

/** Prometheus result shapes, kept exactly as returned (unknown fields preserved). */
const Sample = z.tuple([z.number(), z.string()]);
const VectorItem = z.looseObject({ metric: StringMap, value: Sample.optional() });
const MatrixItem = z.looseObject({ metric: StringMap, values: z.array(Sample).optional() });

export const QueryResultSchema = z.object({
  resultType: z.string(),
  result: z.union([z.array(VectorItem), z.array(MatrixItem), Sample]),
});
export const RangeQueryResultSchema = z.object({ resultType: z.string(), result: z.array(MatrixItem) });

export const queryExample: z.input<typeof QueryResultSchema> = {
  resultType: "vector",
  result: [{ metric: { __name__: "up", instance: "127.0.0.1:19090", job: "prometheus" }, value: [1795363915.581, "1"] }],
};
export const rangeQueryExample: z.input<typeof RangeQueryResultSchema> = {
  resultType: "matrix",
  result: [
    {
      metric: { __name__: "up", instance: "127.0.0.1:19090", job: "prometheus" },
      values: [
        [1795363900, "1"],
        [1795363915, "1"],
      ],
    },
  ],
};

/** `metrics.alert` from the On Alert trigger: one alert with its notification's group fields. */
export const AlertEventSchema = z.object({
  status: z.enum(["firing", "resolved"]),
  labels: StringMap,
  annotations: StringMap,
  startsAt: z.string(),
  endsAt: z.string().meta(ui({ description: "0001-01-01T00:00:00Z while the alert is firing" })),
  generatorURL: z.string(),
  fingerprint: z.string(),
  receiver: z.string(),
  groupKey: z.string(),
  groupLabels: StringMap,
  commonLabels: StringMap,
  commonAnnotations: StringMap,
  externalURL: z.string(),
});
export type AlertEvent = z.output<typeof AlertEventSchema>;

export const alertEventExample: AlertEvent = {
  status: "firing",
  labels: { alertname: "AlwaysFiring", severity: "critical", team: "feas" },
  annotations: { summary: "feasibility test alert", description: "vector(1) > 0 is always true" },
  startsAt: "2026-11-22T03:51:44.384Z",
  endsAt: "0001-01-01T00:00:00Z",
  generatorURL: "http://127.0.0.1:19090/graph?g0.expr=vector%281%29+%3E+0&g0.tab=1",
  fingerprint: "4e9baf9527438810",
  receiver: "app-webhook",
  groupKey: '{}:{alertname="AlwaysFiring"}',
  groupLabels: { alertname: "AlwaysFiring" },
  commonLabels: { alertname: "AlwaysFiring", severity: "critical", team: "feas" },
  commonAnnotations: { summary: "feasibility test alert", description: "vector(1) > 0 is always true" },
  externalURL: "http://127.0.0.1:19093",
};
