import { timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { defineTrigger } from "../core/define";
import { DeliveryUnauthorizedError } from "../core/errors";
import { checkSignature, DEFAULT_SIGNATURE_TOLERANCE_S, MAX_SIGNATURE_TOLERANCE_S, MIN_SIGNATURE_TOLERANCE_S, toleranceOf } from "../core/signed-delivery";
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
        description:
          'Header carrying t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> (timestamped), or the hex HMAC-SHA256 of the raw body, optionally prefixed sha256= (body-only).',
        visibleWhen: { field: "authentication", equals: "hmac" },
      }),
    ),
  requireTimestampedSignature: z
    .boolean()
    .default(false)
    .meta(
      ui({
        title: "Require a timestamped signature",
        description:
          "Refuse body-only signatures: every delivery must carry t=…,v1=…, signed within the tolerance, and each signature is accepted once (a replay is refused). Off: body-only signatures (e.g. GitHub's) are accepted too.",
        visibleWhen: { field: "authentication", equals: "hmac" },
      }),
    ),
  signatureToleranceSeconds: z
    .number()
    .int()
    .min(MIN_SIGNATURE_TOLERANCE_S)
    .max(MAX_SIGNATURE_TOLERANCE_S)
    .optional()
    .meta(
      ui({
        title: "Signature time tolerance (seconds)",
        description: `How far a timestamped signature's t= may be from this server's clock, either way. Empty: the installation's default (CONVEYOR_WEBHOOK_SIGNATURE_TOLERANCE_S, ${DEFAULT_SIGNATURE_TOLERANCE_S} s).`,
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

function howToSign(cfg: z.output<typeof config>): string {
  const tolerance = cfg.signatureToleranceSeconds ? `${cfg.signatureToleranceSeconds} s` : "the installation's tolerance (default 300 s)";
  return [
    `Send ${cfg.signatureHeader}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the secret>,`,
    `signing each delivery (retries too) when it is sent. It is accepted within ${tolerance} of this`,
    "server's clock, once: the same signature again is refused as a replay.",
    cfg.requireTimestampedSignature
      ? "Body-only signatures (sha256=<hex HMAC-SHA256 of the raw body>) are refused: this node requires the timestamp."
      : "A body-only signature (sha256=<hex HMAC-SHA256 of the raw body>, as GitHub sends) is accepted too, without replay protection.",
  ].join("\n");
}

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
  verify(delivery, { config: cfg, now, signatureToleranceS }) {
    if (cfg.authentication === "none") return;
    const secret = cfg.secret ?? "";
    if (cfg.authentication === "bearer") {
      const given = (delivery.headers.authorization ?? "").replace(/^Bearer\s+/i, "");
      if (!safeEqual(given, secret)) throw new DeliveryUnauthorizedError("Missing or wrong bearer token");
      return;
    }
    const checked = checkSignature({
      header: delivery.headers[cfg.signatureHeader.toLowerCase()] ?? "",
      headerName: cfg.signatureHeader,
      rawBody: delivery.rawBody,
      secret,
      nowMs: now().getTime(),
      toleranceS: toleranceOf(cfg.signatureToleranceSeconds, signatureToleranceS ?? DEFAULT_SIGNATURE_TOLERANCE_S),
      requireTimestamp: cfg.requireTimestampedSignature,
    });
    if (!checked.ok) throw new DeliveryUnauthorizedError(checked.message);
    return { replay: checked.replay };
  },
  // The first delivery, ready to paste (the panel otherwise only said "give this URL to the sender"); never the secret itself.
  setupInstructions({ url, config: cfg }) {
    const body = `body='{"hello":"world"}'`;
    const post = `curl -i -X POST -H 'content-type: application/json'`;
    const sign = `t=$(date +%s)\nsig=$(printf '%s.%s' "$t" "$body" | openssl dgst -sha256 -hmac "$SECRET" -r | cut -d' ' -f1)`;
    const text =
      cfg.authentication === "bearer"
        ? `SECRET='<the secret of this node>'\n${post} -H "Authorization: Bearer $SECRET" \\\n  --data '{"hello":"world"}' ${url}`
        : cfg.authentication === "hmac"
          ? `SECRET='<the secret of this node>'\n${body}\n${sign}\n${post} \\\n  -H "${cfg.signatureHeader}: t=$t,v1=$sig" \\\n  --data "$body" ${url}`
          : `${post} --data '{"hello":"world"}' ${url}`;
    const out = [{ title: "Send a test delivery (JSON, answered 202)", language: "bash", text }];
    if (cfg.authentication === "hmac") out.push({ title: "How to sign", language: "text", text: howToSign(cfg) });
    return out;
  },
  match(delivery, { config: cfg }) {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(delivery.headers)) if (!HIDDEN_HEADERS.test(k)) headers[k] = v;
    const dedupeKey = delivery.headers[cfg.dedupeHeader.toLowerCase()] || undefined;
    return [{ data: { body: delivery.body, headers, query: delivery.query }, dedupeKey }];
  },
});
