/**
 * Who may post to a webhook intake (kind `webhook`): the intake secret as `Authorization: Bearer
 * <secret>`, or `X-Conveyor-Signature` in either scheme of integrations/core/signed-delivery.ts. An
 * intake whose config says `requireTimestampedSignature` takes the timestamped scheme only; its
 * `signatureToleranceSeconds` (when set) replaces the installation's tolerance.
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingDelivery } from "@/integrations/core/define";
import { checkSignature, isTimestamped, requiredMessage, toleranceOf, type SignatureResult } from "@/integrations/core/signed-delivery";

export const INTAKE_SIGNATURE_HEADER = "X-Conveyor-Signature";

/** The signature settings kept in a webhook intake's config. */
export interface IntakeSignatureSettings {
  requireTimestampedSignature: boolean;
  signatureToleranceSeconds: number | null;
}

export function intakeSignatureSettings(config: Record<string, unknown> | null | undefined): IntakeSignatureSettings {
  const tol = config?.signatureToleranceSeconds;
  return {
    requireTimestampedSignature: config?.requireTimestampedSignature === true,
    signatureToleranceSeconds: typeof tol === "number" ? tol : null,
  };
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function checkTaskIntakeAuth(
  d: IncomingDelivery,
  secret: string,
  config: Record<string, unknown> | null,
  nowMs: number,
  defaultToleranceS: number,
): SignatureResult {
  const settings = intakeSignatureSettings(config);
  const requireTimestamp = settings.requireTimestampedSignature;
  const header = d.headers["x-conveyor-signature"] ?? "";
  if (!requireTimestamp) {
    const bearer = (d.headers.authorization ?? "").replace(/^Bearer\s+/i, "");
    if (bearer && safeEqual(bearer, secret)) return { ok: true };
  }
  if (!header.trim() || (!requireTimestamp && !isTimestamped(header))) {
    if (requireTimestamp) return { ok: false, message: requiredMessage(INTAKE_SIGNATURE_HEADER) };
    const legacy = header.trim()
      ? checkSignature({ header, headerName: INTAKE_SIGNATURE_HEADER, rawBody: d.rawBody, secret, nowMs, toleranceS: defaultToleranceS, requireTimestamp })
      : undefined;
    if (legacy?.ok) return legacy;
    return {
      ok: false,
      message: `Send the intake secret as Authorization: Bearer <secret>, or sign the body: ${INTAKE_SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> (or sha256=<hex HMAC-SHA256 of the raw body>).`,
    };
  }
  return checkSignature({
    header,
    headerName: INTAKE_SIGNATURE_HEADER,
    rawBody: d.rawBody,
    secret,
    nowMs,
    toleranceS: toleranceOf(settings.signatureToleranceSeconds, defaultToleranceS),
    requireTimestamp,
  });
}
