/** Prometheus & Alertmanager: alert webhooks, queries, alerts and silences. */
import { defineIntegration } from "../core/define";
import { createSilence } from "./components/create-silence";
import { expireSilence } from "./components/expire-silence";
import { getAlert } from "./components/get-alert";
import { getSilence } from "./components/get-silence";
import { query } from "./components/query";
import { queryRange } from "./components/query-range";
import { MetricsConnectionSchema } from "./connection";
import { metricsResources } from "./resources";
import { onAlert } from "./triggers/on-alert";
import { verifyMetricsConnection } from "./verify";

export const metrics = defineIntegration({
  key: "metrics",
  title: "Prometheus & Alertmanager",
  description: "Start runs from Alertmanager notifications; query Prometheus, read alerts, create and expire silences.",
  icon: "activity",
  connection: { kind: "form", schema: MetricsConnectionSchema, verify: verifyMetricsConnection },
  components: [createSilence, expireSilence, getSilence, getAlert, query, queryRange],
  triggers: [onAlert],
  resources: metricsResources,
});
