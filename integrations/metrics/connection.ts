/**
 * Metrics connection: Prometheus (metrics server) + Alertmanager (alert router) base URLs, API auth
 * and the webhook secret Alertmanager must send to the `metrics.onAlert` trigger.
 */
import { z } from "zod";
import type { ConnectionHandle } from "../core/define";
import { NonRetryableError } from "../core/errors";
import { ui } from "../core/ui-meta";

const BaseUrl = z
  .url({ protocol: /^https?$/, error: (iss) => (iss.input === undefined ? "Required" : "Use an http(s):// URL") })
  .trim()
  .transform((u) => u.replace(/\/+$/, ""));

export const ApiAuthSchema = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("none") }),
    z.object({
      type: z.literal("basic"),
      username: z
        .string()
        .min(1)
        .meta(ui({ title: "Username" })),
      password: z
        .string()
        .min(1)
        .meta(ui({ title: "Password", sensitive: true })),
    }),
    z.object({
      type: z.literal("bearer"),
      token: z
        .string()
        .min(1)
        .meta(ui({ title: "Token", sensitive: true })),
    }),
  ])
  .default({ type: "none" })
  .meta(
    ui({
      title: "API Auth",
      description: "How API requests authenticate to Prometheus and Alertmanager (bearer needs a proxy in front of Prometheus).",
      enumLabels: { none: "None", basic: "Basic", bearer: "Bearer token" },
    }),
  );

export const MetricsConnectionSchema = z.object({
  metricsBaseUrl: BaseUrl.meta(ui({ title: "Metrics Base URL", placeholder: "http://prometheus:9090", order: 1 })),
  alertRouterBaseUrl: BaseUrl.optional().meta(
    ui({
      title: "Alert router Base URL",
      description: "Alertmanager URL; needed for silences. Falls back to the Metrics Base URL when empty.",
      placeholder: "http://alertmanager:9093",
      order: 2,
    }),
  ),
  apiAuth: ApiAuthSchema.meta(ui({ title: "API Auth", order: 3 })),
  webhookSecret: z
    .string()
    .optional()
    .meta(
      ui({
        title: "Webhook Secret",
        description: "Recommended. Alertmanager must send Authorization: Bearer <secret> on webhook requests.",
        sensitive: true,
        order: 4,
      }),
    ),
});

export type MetricsConnection = z.output<typeof MetricsConnectionSchema>;

/** Accepts an empty alert router URL / secret from a form as "not set". */
export function normalizeConnection(raw: unknown): MetricsConnection {
  const c = { ...(raw as Record<string, unknown>) };
  for (const k of ["alertRouterBaseUrl", "webhookSecret"]) if (c[k] === "" || c[k] === null) delete c[k];
  return MetricsConnectionSchema.parse(c);
}

export function alertRouterUrl(conn: MetricsConnection): string {
  return conn.alertRouterBaseUrl ?? conn.metricsBaseUrl;
}

export function authHeaders(conn: MetricsConnection): Record<string, string> {
  const auth = conn.apiAuth;
  if (auth.type === "basic") return { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}` };
  if (auth.type === "bearer") return { authorization: `Bearer ${auth.token}` };
  return {};
}

/** The connection config of a component/trigger context, or a clear error when the node has none. */
export function requireConnection(handle: ConnectionHandle<unknown> | undefined): MetricsConnection {
  if (!handle) throw new NonRetryableError("This step needs a Prometheus & Alertmanager connection");
  return normalizeConnection(handle.config);
}
