import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { defineTrigger } from "../core/define";
import { DeliveryUnauthorizedError } from "../core/errors";
import { ui } from "../core/ui-meta";

const config = z.object({
  authentication: z
    .enum(["none", "bearer", "hmac"])
    .default("none")
    .meta(
      ui({
        title: "Authentication",
        enumLabels: { none: "None", bearer: "Bearer token", hmac: "HMAC-SHA256 signature" },
      }),
    ),
  secret: z
    .string()
    .min(8)
    .optional()
    // Both bearer and HMAC need it (validate below): shown for bearer only, HMAC left nowhere to type it.
    .meta(ui({ title: "Secret", sensitive: true, visibleWhen: { field: "authentication", oneOf: ["bearer", "hmac"] } })),
  signatureHeader: z
    .string()
    .default("x-signature-256")
    .meta(
      ui({
        title: "Signature header",
        description: "Header carrying hex HMAC-SHA256 of the raw body (optionally prefixed sha256=).",
        visibleWhen: { field: "authentication", equals: "hmac" },
      }),
    ),
  dedupeHeader: z
    .string()
    .default("idempotency-key")
    .meta(ui({ title: "Delivery id header", description: "Repeated deliveries with the same value start one run." })),
});

const output = z.object({
  body: z.unknown(),
  headers: z.record(z.string(), z.string()),
  query: z.record(z.string(), z.string()),
});

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const HIDDEN_HEADERS = /^(authorization|cookie|x-signature|proxy-authorization)/i;

/** Generic inbound webhook: any JSON POST to the node's URL starts a run. */
export const webhookTrigger = defineTrigger({
  key: "core.webhook",
  title: "Webhook",
  description: "Start a run for each JSON request posted to this node's URL (optional bearer token or HMAC signature).",
  delivery: "webhook",
  needsConnection: false,
  config,
  outputType: "core.webhook",
  output,
  example: { body: { hello: "world" }, headers: { "content-type": "application/json" }, query: {} },
  validate(cfg) {
    return cfg.authentication !== "none" && !cfg.secret ? [{ path: "secret", message: "A secret is required for this authentication" }] : [];
  },
  verify(delivery, { config: cfg }) {
    if (cfg.authentication === "none") return;
    const secret = cfg.secret ?? "";
    if (cfg.authentication === "bearer") {
      const given = (delivery.headers.authorization ?? "").replace(/^Bearer\s+/i, "");
      if (!safeEqual(given, secret)) throw new DeliveryUnauthorizedError("Missing or wrong bearer token");
      return;
    }
    const sig = (delivery.headers[cfg.signatureHeader.toLowerCase()] ?? "").replace(/^sha256=/i, "").toLowerCase();
    const expected = createHmac("sha256", secret).update(delivery.rawBody).digest("hex");
    if (!safeEqual(sig, expected)) throw new DeliveryUnauthorizedError("Missing or wrong HMAC-SHA256 signature");
  },
  // The first delivery, ready to paste (the panel otherwise only said "give this URL to the sender"); never the secret itself.
  setupInstructions({ url, config: cfg }) {
    const body = `body='{"hello":"world"}'`;
    const post = `curl -i -X POST -H 'content-type: application/json'`;
    const text =
      cfg.authentication === "bearer"
        ? `SECRET='<the secret of this node>'\n${post} -H "Authorization: Bearer $SECRET" \\\n  --data '{"hello":"world"}' ${url}`
        : cfg.authentication === "hmac"
          ? `SECRET='<the secret of this node>'\n${body}\n${post} \\\n  -H "${cfg.signatureHeader}: sha256=$(printf %s "$body" | openssl dgst -sha256 -hmac "$SECRET" -r | cut -d' ' -f1)" \\\n  --data "$body" ${url}`
          : `${post} --data '{"hello":"world"}' ${url}`;
    return [{ title: "Send a test delivery (JSON, answered 202)", language: "bash", text }];
  },
  match(delivery, { config: cfg }) {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(delivery.headers)) if (!HIDDEN_HEADERS.test(k)) headers[k] = v;
    const dedupeKey = delivery.headers[cfg.dedupeHeader.toLowerCase()] || undefined;
    return [{ data: { body: delivery.body, headers, query: delivery.query }, dedupeKey }];
  },
});
