import { createHash, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { defineTrigger, withLegacyDefaults, type IncomingDelivery } from "../../core/define";
import { DeliveryRejectedError, DeliveryUnauthorizedError } from "../../core/errors";
import { ui } from "../../core/ui-meta";
import { normalizeConnection } from "../connection";
import { requiredError } from "../duration";
import { AlertEventSchema, alertEventExample } from "../schemas";
import { parseNotification, toAlertEvents } from "./notification";
import { alertmanagerSnippet } from "./setup-snippet";

export const OnAlertConfigSchema = z.object({
  statuses: z
    .array(z.enum(["firing", "resolved"]), { error: requiredError("Statuses", "select firing, resolved or both") })
    .min(1, "Select firing, resolved or both")
    .meta(ui({ title: "Statuses", widget: "multiselect", enumLabels: { firing: "Firing", resolved: "Resolved" }, prefill: ["firing"], order: 1 })),
  alertNames: z
    .array(z.string().trim().min(1))
    .default([])
    .meta(ui({ title: "Alert Names", description: "Exact alertname values; empty means every alert", order: 2 })),
  runOnRepeat: z
    .boolean()
    .default(false)
    .meta(
      ui({
        title: "Start a run on every repeat notification",
        description: "Off: one run per alert episode (fingerprint, status, start). On: every reminder Alertmanager sends starts a run.",
        order: 3,
      }),
    ),
});
export type OnAlertConfig = z.output<typeof OnAlertConfigSchema>;
const LEGACY_DEFAULTS = { statuses: ["firing"] };
const onAlertLegacy = { legacyDefaults: LEGACY_DEFAULTS };

function sha256(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}

function header(delivery: IncomingDelivery, name: string): string | undefined {
  const hit = Object.entries(delivery.headers ?? {}).find(([k]) => k.toLowerCase() === name);
  return hit?.[1];
}

/** Requires `Authorization: Bearer <webhook secret>` when the connection has one (constant-time compare). */
export function verifyBearer(delivery: IncomingDelivery, secret: string | undefined): void {
  if (!secret) return;
  const value = header(delivery, "authorization");
  if (!value) throw new DeliveryUnauthorizedError("Missing Authorization header: the connection has a webhook secret");
  const m = /^Bearer\s+(.+)$/i.exec(value.trim());
  if (!m && /^\S+\s/.test(value.trim()))
    throw new DeliveryUnauthorizedError(
      `Authorization uses ${value.trim().split(/\s/)[0]}, not Bearer: set http_config.authorization (type Bearer, credentials: the webhook secret) in alertmanager.yml, not basic_auth`,
    );
  // Hash both sides so the comparison takes the same time whatever the lengths.
  const ok = timingSafeEqual(sha256(m ? m[1].trim() : ""), sha256(secret));
  if (!m || !ok) throw new DeliveryUnauthorizedError("Wrong webhook secret in the Authorization header");
}

// Parsed settings by the (cached, never modified) objects the ingress passes in: a delivery does not
// validate the same trigger config and connection again (zod was ~6 % of ingest CPU).
const parsedConfigs = new WeakMap<object, OnAlertConfig>();
const secrets = new WeakMap<object, { secret: string | undefined }>();

function configOf(raw: unknown): OnAlertConfig {
  const key = raw && typeof raw === "object" ? raw : undefined;
  const hit = key && parsedConfigs.get(key);
  if (hit) return hit;
  const config = OnAlertConfigSchema.parse(withLegacyDefaults(onAlertLegacy, raw ?? {}));
  if (key) parsedConfigs.set(key, config);
  return config;
}

function webhookSecretOf(raw: unknown): string | undefined {
  const key = raw && typeof raw === "object" ? raw : undefined;
  const hit = key && secrets.get(key);
  if (hit) return hit.secret;
  const secret = normalizeConnection(raw).webhookSecret;
  if (key) secrets.set(key, { secret });
  return secret;
}

export const onAlert = defineTrigger({
  key: "metrics.onAlert",
  title: "On Alert",
  description: "Starts a run for each alert in an Alertmanager notification.",
  docs: "Add the generated receiver to `alertmanager.yml` and reload Alertmanager. Each alert whose status is selected (and whose alertname is listed, when Alert Names is set) becomes one `metrics.alert` event with the group fields copied on. Repeats of the same alert episode start one run unless **Start a run on every repeat notification** is on.",
  delivery: "webhook",
  config: OnAlertConfigSchema,
  // Statuses is required by the spec; triggers saved while it defaulted to firing keep matching firing alerts.
  legacyDefaults: LEGACY_DEFAULTS,
  outputType: "metrics.alert",
  output: AlertEventSchema,
  example: alertEventExample,
  verify(delivery, ctx) {
    const secret = ctx.connection ? webhookSecretOf(ctx.connection.config) : undefined;
    verifyBearer(delivery, secret);
  },
  match(delivery, ctx) {
    let body = delivery.body;
    if (body === undefined) {
      try {
        body = JSON.parse(delivery.rawBody.toString("utf8"));
      } catch (e) {
        throw new DeliveryRejectedError(`Invalid JSON: ${(e as Error).message}`, 400);
      }
    }
    const config = configOf(ctx.config);
    const names = new Set(config.alertNames);
    return toAlertEvents(parseNotification(body))
      .filter((e) => config.statuses.includes(e.status))
      .filter((e) => names.size === 0 || names.has(e.labels.alertname ?? ""))
      .map((data) => ({
        data,
        // One run per alert episode; Alertmanager's repeats and 5xx retries carry the same key. The
        // time comes first: fingerprints are hashes, so keys led by them land at a random place of
        // the stored keys' index, one more page written per delivery (bench/ingest.ts: 97 against 78 µs
        // of CPU per delivery); led by startsAt, new episodes' keys land together at its end.
        dedupeKey: config.runOnRepeat ? undefined : `${data.startsAt}:${data.status}:${data.fingerprint}`,
      }));
  },
  setupInstructions({ url, config, connection }) {
    const hasSecret = Boolean(connection && normalizeConnection(connection.config).webhookSecret);
    return alertmanagerSnippet({
      url,
      config: OnAlertConfigSchema.parse(withLegacyDefaults(onAlertLegacy, config ?? {})),
      hasSecret,
      alertRouterUrl: connection ? alertRouterOf(connection.config) : undefined,
    });
  },
});

function alertRouterOf(raw: unknown): string | undefined {
  try {
    const c = normalizeConnection(raw);
    return c.alertRouterBaseUrl ?? c.metricsBaseUrl;
  } catch {
    return undefined;
  }
}
