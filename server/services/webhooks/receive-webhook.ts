/**
 * Webhook ingress (every door: the lean listener and the Next route call this).
 * Order: size cap → intake (404 unknown/disabled) → content type (415) → JSON (400 with the parse
 * error) → trigger `verify` (401, nothing stored) → `match` → dedupe + event + runs committed in
 * one transaction (group-committed with the other deliveries of this tick) → 202 with run ids.
 * The request never waits for the runs themselves.
 */
import { prepared } from "@/db/prepared";
import { createHmac, timingSafeEqual } from "node:crypto";
import { groupCommitter } from "@/db/group-commit";
import { envelope, type IncomingDelivery, type MatchedEvent } from "@/integrations/core/define";
import { DeliveryRejectedError, DeliveryUnauthorizedError } from "@/integrations/core/errors";
import type { AppDeps } from "../../deps";
import { createRunInTx } from "../../runner/create-run";
import { notifyWork } from "../../runner/signal";
import { flushUsage } from "../../runner/usage";
import { createTaskFromIntake } from "../tasks/create-task";
import { loadIntakeHead, sharedTargets, triggerTarget, type IntakeHead, type TriggerTarget } from "./intake-context";

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

const problem = (status: number, title: string, detail: string): WebhookResponse => ({
  status,
  headers: { "content-type": "application/problem+json" },
  body: { type: "about:blank", title, status, detail },
});

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function parseJson(rawBody: Buffer): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(rawBody.toString("utf8")) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** Intake counters (last event, count) are aggregated per group commit: one UPDATE per intake per batch. */
const intakeCounts = new WeakMap<object, Map<string, { n: number; at: string }>>();

function countIntake(deps: AppDeps, intakeId: string, at: string): void {
  let m = intakeCounts.get(deps.db);
  if (!m) {
    const map = new Map<string, { n: number; at: string }>();
    m = map;
    intakeCounts.set(deps.db, map);
    let usageFlushedAt = Date.now();
    groupCommitter(deps.db).onBatchEnd((tx) => {
      // Usage counters are flushed by the runner's maintenance; a web process without a runner
      // (CONVEYOR_RUNNER=0) flushes them here, at most once a second.
      if (Date.now() - usageFlushedAt >= 1000) {
        usageFlushedAt = Date.now();
        flushUsage(tx);
      }
      if (!map.size) return;
      const upd = prepared(tx, "update intakes set last_event_at = ?, event_count = event_count + ? where id = ?");
      for (const [id, c] of map) upd.run(c.at, c.n, id);
      map.clear();
    });
  }
  const cur = m.get(intakeId);
  if (cur) {
    cur.n++;
    cur.at = at;
  } else m.set(intakeId, { n: 1, at });
}

export async function receiveWebhook(deps: AppDeps, req: WebhookRequest, opts: { maxBytes?: number } = {}): Promise<WebhookResponse> {
  const maxBytes = opts.maxBytes ?? DEFAULT_WEBHOOK_MAX_BYTES;
  if (req.rawBody.length > maxBytes) return problem(413, "Payload too large", `The body is ${req.rawBody.length} bytes; the limit is ${maxBytes}.`);
  const intake = loadIntakeHead(deps, req.token);
  // `error` (an upstream registration failed) still accepts deliveries: the URL itself is valid.
  if (!intake || intake.status === "disabled" || intake.kind === "tracker") return problem(404, "Not found", "No active webhook at this URL.");
  if (req.method !== "POST") return { ...problem(405, "Method not allowed", "Deliveries are POST requests."), headers: { allow: "POST", "content-type": "application/problem+json" } };

  let targets: TriggerTarget[] = [];
  if (intake.kind === "trigger") {
    const t = await triggerTarget(deps, intake);
    if (!t) return problem(404, "Not found", "No active webhook at this URL.");
    targets = [t];
  } else if (intake.kind === "shared") {
    targets = await sharedTargets(deps, intake);
  }
  const wantsJson = intake.kind === "webhook" || targets.some((t) => t.trigger.jsonBody !== false);
  const ctype = (req.headers["content-type"] ?? "").toLowerCase();
  let body: unknown = undefined;
  if (wantsJson) {
    if (!ctype.includes("json")) return problem(415, "Unsupported media type", `Send JSON (content-type: application/json), not "${ctype || "none"}".`);
    const parsed = parseJson(req.rawBody);
    if (!parsed.ok) return problem(400, "Bad request", `The body is not valid JSON: ${parsed.error}`);
    body = parsed.value;
  }
  const delivery: IncomingDelivery = { method: req.method, headers: req.headers, query: req.query, rawBody: req.rawBody, body };

  if (intake.kind === "webhook") return receiveTaskDelivery(deps, intake, delivery);

  // verify (all targets of a shared intake share the connection; the first one that accepts is enough)
  const matched: Array<{ target: TriggerTarget; events: MatchedEvent[] }> = [];
  let unauthorized: string | undefined;
  for (const target of targets) {
    const ctx = { config: target.config, connection: target.connection, intake: { id: intake.id, url: "", token: req.token }, now: deps.now };
    try {
      await target.trigger.verify?.(delivery, ctx);
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
      if (e instanceof DeliveryRejectedError) return problem(e.status, e.status === 400 ? "Bad request" : "Unprocessable entity", e.message);
      throw e;
    }
  }
  if (unauthorized !== undefined && matched.length === 0) return problem(401, "Unauthorized", unauthorized);

  const now = deps.now();
  const result = await groupCommitter(deps.db).run((tx) => {
    const runIds: string[] = [];
    let duplicates = 0;
    for (const { target, events } of matched) {
      for (const ev of events) {
        const created = createRunInTx(tx, {
          workspaceId: intake.workspaceId, automationId: target.automationId, version: target.version, triggerNodeId: target.node.id, graph: target.graph,
          envelope: envelope(ev.type ?? target.trigger.outputType, ev.data, now), source: "webhook", intakeId: intake.id,
          dedupeScope: intake.kind === "shared" ? `${intake.id}:${target.automationId}:${target.node.id}` : intake.id, dedupeKey: ev.dedupeKey ?? null, at: now,
        });
        if (created) runIds.push(created.runId);
        else duplicates++;
      }
    }
    countIntake(deps, intake.id, now.toISOString());
    return { runIds, duplicates };
  });
  if (result.runIds.length) notifyWork();
  return { status: 202, headers: { "content-type": "application/json" }, body: { accepted: result.runIds.length, runIds: result.runIds, duplicates: result.duplicates } };
}

/** Webhook intakes: a JSON POST becomes a task on the intake's line (bearer secret or HMAC signature required). */
async function receiveTaskDelivery(deps: AppDeps, intake: IntakeHead, d: IncomingDelivery): Promise<WebhookResponse> {
  if (intake.secretEnc) {
    const secret = deps.box.decrypt(intake.secretEnc);
    const bearer = (d.headers.authorization ?? "").replace(/^Bearer\s+/i, "");
    const sig = (d.headers["x-conveyor-signature"] ?? "").replace(/^sha256=/i, "").toLowerCase();
    const ok = (bearer && safeEqual(bearer, secret)) || (sig && safeEqual(sig, createHmac("sha256", secret).update(d.rawBody).digest("hex")));
    if (!ok) return problem(401, "Unauthorized", "Send the intake secret as Authorization: Bearer <secret> or an X-Conveyor-Signature: sha256=<hmac of the body>.");
  }
  const key = d.headers["idempotency-key"] || d.headers["x-delivery-id"] || null;
  const now = deps.now();
  const out = await groupCommitter(deps.db).run((tx) => {
    if (key) {
      const ins = prepared(tx, "insert into events (id, workspace_id, intake_id, dedupe_scope, dedupe_key, type, envelope, source, received_at) values (?, ?, ?, ?, ?, 'core.task.intake', '{}', 'webhook', ?) on conflict do nothing")
        .run(`evt_${intake.id}_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`, intake.workspaceId, intake.id, intake.id, key, now.toISOString());
      if (!ins.changes) return null;
    }
    const row = prepared(tx, "select * from intakes where id = ?").get(intake.id) as Record<string, unknown>;
    const task = createTaskFromIntake(deps, tx, {
      id: intake.id, workspaceId: intake.workspaceId, kind: "webhook", name: intake.name, key: null, source: null, token: "", automationId: null, nodeId: null, connectionId: null,
      lineId: intake.lineId, secretEnc: null, config: intake.config ? JSON.parse(intake.config) : null, status: "active", statusMessage: null,
      lastEventAt: null, eventCount: 0, createdAt: String(row.created_at), updatedAt: String(row.updated_at),
    }, d.body);
    prepared(tx, "update intakes set last_event_at = ?, event_count = event_count + 1 where id = ?").run(now.toISOString(), intake.id);
    return task;
  });
  notifyWork();
  if (!out) return { status: 202, headers: { "content-type": "application/json" }, body: { accepted: 0, duplicates: 1, taskId: null } };
  return { status: 202, headers: { "content-type": "application/json" }, body: { accepted: 1, duplicates: 0, taskId: out.id } };
}
