import { getDeps } from "@/server/deps";
import { getMetrics } from "@/server/observability/metrics";

export const dynamic = "force-dynamic";

/**
 * GET /metrics: Prometheus text format (runs by status, queue depth/age, outbox, step durations, webhook
 * deliveries, upstream errors, scale-out gauges). The served app answers it before Next
 * (server/roles/ops-http.ts) with the same registry.
 */
export async function GET() {
  const metrics = getMetrics();
  metrics.bind(await getDeps());
  return new Response(await metrics.registry.metrics(), { headers: { "content-type": metrics.registry.contentType } });
}
