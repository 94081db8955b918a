/**
 * Webhook ingress (every door: the lean listener and the Next route call this).
 * Order: size cap → intake (404 unknown/disabled; a cached head is re-checked at the commit, and a
 * refusal made from one is decided again on a fresh lookup) → content type (415) → JSON (400 with the parse
 * error) → trigger `verify` (401, nothing stored) → `match` → dedupe + event + runs committed in
 * one transaction (group-committed with the other deliveries of this tick) → 202 with run ids.
 * The request never waits for the runs themselves.
 */
import type { IngestItem, NewRun } from "@/db/engine";
import { envelope, type IncomingDelivery, type MatchedEvent, type VerifiedDelivery } from "@/integrations/core/define";
import { DeliveryRejectedError, DeliveryUnauthorizedError } from "@/integrations/core/errors";
import { DEFAULT_SIGNATURE_TOLERANCE_S, replayMessage } from "@/integrations/core/signed-delivery";
import type { AppDeps } from "../../deps";
import { newId } from "../../ids";
import { countUsage } from "../../usage-counters";
import type { ErrorCode, FieldProblem } from "../../errors";
import { problemBody, zodProblems } from "../../rest/problem";
import { nestsDeeperThan, tooDeepMessage } from "../../http/json-depth";
import { IntakeDeliverySchema } from "../../contracts/intakes";
import { createTaskFromIntake } from "../tasks/create-task";
import { loadIntakeHead, sharedTargets, triggerTarget, type IntakeHead, type TriggerTarget } from "./intake-context";
import { noteRefused } from "./refusals";
import { checkTaskIntakeAuth } from "./task-intake-auth";

export const DEFAULT_WEBHOOK_MAX_BYTES = 1024 * 1024;

export interface WebhookRequest {
  token: string;
  method: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  rawBody: Buffer;
}

export interface WebhookResponse {
  status: number;
  headers?: Record<string, string>;
  body: Record<string, unknown>;
}

/** Every webhook refusal: the same problem+json body as the REST API (server/rest/problem.ts). */
export function hookProblem(code: ErrorCode, detail: string, opts: { errors?: FieldProblem[]; headers?: Record<string, string> } = {}): WebhookResponse {
  const body = problemBody(code, detail, { errors: opts.errors });
  return { status: body.status, headers: { "content-type": "application/problem+json", ...opts.headers }, body: body as unknown as Record<string, unknown> };
}

function parseJson(rawBody: Buffer): { ok: true; value: unknown } | { ok: false; error: string } {
  const text = rawBody.toString("utf8");
  if (nestsDeeperThan(text)) return { ok: false, error: tooDeepMessage() };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

const TOKEN_RE = /^[A-Za-z0-9_-]{1,200}$/;

export interface ReceiveOptions {
  maxBytes?: number;
  /**
   * Called right before the delivery's commit starts; it throws when the caller gave up on the
   * delivery already (it answered "not stored"), so nothing is committed after that answer.
   */
  beforeCommit?: () => void;
  /** Default tolerance of timestamped signatures, in seconds (CONVEYOR_WEBHOOK_SIGNATURE_TOLERANCE_S). */
  signatureToleranceS?: number;
}

/** The cached intake head an ingest was guarded by no longer matched: nothing was stored. */
const STALE = Symbol("stale");

export async function receiveWebhook(deps: AppDeps, req: WebhookRequest, opts: ReceiveOptions = {}): Promise<WebhookResponse> {
  const maxBytes = opts.maxBytes ?? DEFAULT_WEBHOOK_MAX_BYTES;
  if (req.rawBody.length > maxBytes) return hookProblem("payload_too_large", `The body is ${req.rawBody.length} bytes; the limit is ${maxBytes}.`);
  // Tokens are base64url (newToken); anything else cannot be an intake, and is never sent to the database.
  if (!TOKEN_RE.test(req.token)) return hookProblem("not_found", "No active webhook at this URL.");
  const head = await loadIntakeHead(deps, req.token);
  const first = await receiveFor(deps, req, opts, head);
  if (first !== STALE && (first.status === 202 || !head?.cached)) return refusalNoted(deps, head, first);
  // A head served from the engine's cache only ever leads to a guarded commit; a refusal made from
  // it, or a commit whose guard no longer matched, is decided again on the intake as it is now.
  const fresh = await loadIntakeHead(deps, req.token, { fresh: true });
  const again = await receiveFor(deps, req, opts, fresh);
  if (again === STALE) throw new Error("a fresh intake head was answered as stale");
  return refusalNoted(deps, fresh, again);
}

/** A 4xx answered for a known intake is kept on it for the trigger panel (throttled: ./refusals.ts). */
function refusalNoted(deps: AppDeps, intake: IntakeHead | undefined, res: WebhookResponse): WebhookResponse {
  if (intake && res.status >= 400) noteRefused(deps, intake.id, res);
  return res;
}

async function receiveFor(deps: AppDeps, req: WebhookRequest, opts: ReceiveOptions, intake: IntakeHead | undefined): Promise<WebhookResponse | typeof STALE> {
  // `error` (an upstream registration failed) still accepts deliveries: the URL itself is valid.
  if (!intake || intake.status === "disabled" || intake.kind === "tracker") return hookProblem("not_found", "No active webhook at this URL.");
  if (req.method !== "POST") return hookProblem("method_not_allowed", "Deliveries are POST requests.", { headers: { allow: "POST" } });

  let targets: TriggerTarget[] = [];
  if (intake.kind === "trigger") {
    const t = await triggerTarget(deps, intake);
    if (!t) return hookProblem("not_found", "No active webhook at this URL.");
    targets = [t];
  } else if (intake.kind === "shared") {
    targets = await sharedTargets(deps, intake);
  }
  const wantsJson = intake.kind === "webhook" || targets.some((t) => t.trigger.jsonBody !== false);
  const ctype = (req.headers["content-type"] ?? "").toLowerCase();
  let body: unknown = undefined;
  if (wantsJson) {
    if (!ctype.includes("json"))
      return hookProblem("unsupported_media_type", `Send JSON (content-type: application/json), not "${ctype.slice(0, 100) || "none"}".`);
    const parsed = parseJson(req.rawBody);
    if (!parsed.ok)
      return hookProblem("bad_request", parsed.error.startsWith("The JSON body") ? parsed.error : `The body is not valid JSON: ${parsed.error}`, {
        errors: [{ path: "", message: "Malformed JSON" }],
      });
    body = parsed.value;
  }
  const delivery: IncomingDelivery = { method: req.method, headers: req.headers, query: req.query, rawBody: req.rawBody, body };

  const toleranceS = opts.signatureToleranceS ?? DEFAULT_SIGNATURE_TOLERANCE_S;
  if (intake.kind === "webhook") return receiveTaskDelivery(deps, intake, delivery, toleranceS, opts.beforeCommit);

  // verify (all targets of a shared intake share the connection; the first one that accepts is enough)
  const matched: Array<{ target: TriggerTarget; events: MatchedEvent[] }> = [];
  let unauthorized: string | undefined;
  let signature: IngestItem["signature"];
  for (const target of targets) {
    const ctx = {
      config: target.config,
      connection: target.connection,
      intake: { id: intake.id, url: "", token: req.token },
      now: deps.now,
      signatureToleranceS: toleranceS,
    };
    try {
      const verified: VerifiedDelivery | void = await target.trigger.verify?.(delivery, ctx);
      signature ??= verified?.replay;
    } catch (e) {
      if (e instanceof DeliveryUnauthorizedError) {
        unauthorized = e.message;
        continue;
      }
      throw e;
    }
    try {
      matched.push({ target, events: await target.trigger.match(delivery, ctx) });
    } catch (e) {
      if (e instanceof DeliveryRejectedError) {
        // Triggers name the offending field in `details.path` when they can; the whole body otherwise.
        const path = typeof (e.details as { path?: unknown })?.path === "string" ? String((e.details as { path: string }).path) : "";
        return hookProblem(e.status === 400 ? "bad_request" : "unprocessable", e.message, { errors: [{ path, message: e.message }] });
      }
      throw e;
    }
  }
  if (unauthorized !== undefined && matched.length === 0) return hookProblem("unauthorized", unauthorized);

  const now = deps.now();
  const runs: NewRun[] = [];
  for (const { target, events } of matched) {
    const firstNodes = target.graph.children.get(target.node.id) ?? [];
    for (const ev of events) {
      runs.push({
        workspaceId: intake.workspaceId,
        automationId: target.automationId,
        version: target.version,
        triggerNodeId: target.node.id,
        firstNodes,
        envelope: envelope(ev.type ?? target.trigger.outputType, ev.data, now),
        source: "webhook",
        intakeId: intake.id,
        dedupeScope: intake.kind === "shared" ? `${intake.id}:${target.automationId}:${target.node.id}` : intake.id,
        dedupeKey: ev.dedupeKey ?? null,
        at: now,
      });
    }
  }
  // Committed (grouped with the other deliveries of this tick) before the 202 goes out.
  opts.beforeCommit?.();
  const result = await deps.store.engine.ingest({ intakeId: intake.id, runs, guard: intake.cached ? intake : undefined, signature });
  if (result.stale) return STALE;
  if (result.replayed) return hookProblem("unauthorized", replayMessage());
  if (result.runIds.length) {
    countUsage(intake.workspaceId, "events.received", result.runIds.length, now);
    if (result.finished) countUsage(intake.workspaceId, "runs.succeeded", result.finished, now);
    deps.queue.publish(result.runIds);
  }
  return {
    status: 202,
    headers: { "content-type": "application/json" },
    body: { accepted: result.runIds.length, runIds: result.runIds, duplicates: result.duplicates },
  };
}

const REPLAYED = Symbol("replayed");

/** Webhook intakes: a JSON POST becomes a task on the intake's line (bearer secret or HMAC signature required). */
async function receiveTaskDelivery(
  deps: AppDeps,
  intake: IntakeHead,
  d: IncomingDelivery,
  toleranceS: number,
  beforeCommit?: () => void,
): Promise<WebhookResponse> {
  const auth = intake.secretEnc
    ? checkTaskIntakeAuth(d, deps.box.decrypt(intake.secretEnc), intake.config, deps.now().getTime(), toleranceS)
    : { ok: true as const };
  if (!auth.ok) return hookProblem("unauthorized", auth.message);
  const replay = auth.replay;
  const shape = IntakeDeliverySchema.safeParse(d.body);
  if (!shape.success)
    return hookProblem(
      "validation_failed",
      "The delivery does not match the intake's shape: a JSON object with an optional string `title` and `description` and any `data`; see `errors`.",
      { errors: zodProblems(shape.error) },
    );
  const key = d.headers["idempotency-key"] || d.headers["x-delivery-id"] || null;
  const now = deps.now();
  beforeCommit?.();
  const out = await deps.store.tx(async (s) => {
    const iso = now.toISOString();
    // A timestamped signature is used once; in the transaction that stores the task, so only a stored delivery uses it.
    if (replay && !(await s.webhookSignatures.record({ intakeId: intake.id, signature: replay.signature, expiresAt: replay.expiresAtMs }))) return REPLAYED;
    if (
      key &&
      !(await s.runs.recordDelivery({
        id: newId("evt"),
        workspaceId: intake.workspaceId,
        intakeId: intake.id,
        dedupeScope: intake.id,
        dedupeKey: key,
        receivedAt: iso,
      }))
    )
      return null;
    const task = await createTaskFromIntake(
      deps,
      s,
      { id: intake.id, workspaceId: intake.workspaceId, kind: "webhook", name: intake.name, lineId: intake.lineId, config: intake.config },
      d.body,
    );
    await s.runs.touchIntake(intake.id, iso);
    return task;
  });
  if (out === REPLAYED) return hookProblem("unauthorized", replayMessage());
  if (!out) return { status: 202, headers: { "content-type": "application/json" }, body: { accepted: 0, duplicates: 1, taskId: null } };
  return { status: 202, headers: { "content-type": "application/json" }, body: { accepted: 1, duplicates: 0, taskId: out.id } };
}
