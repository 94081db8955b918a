/**
 * Intakes as the API lists them, and webhook intakes (a JSON POST to the URL creates a task on a
 * line). The secret is returned once on creation and stored encrypted.
 */
import type { Store } from "@/db/store";
import type { IntakeRow } from "@/db/types";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError } from "../../errors";
import { newId, newToken } from "../../ids";
import { requireWorkspace } from "../access";
import { recordAudit } from "../audit/record-audit";
import { decodeCursor, encodeCursor } from "../tasks/cursor";
import { chooseKey } from "../as-code/keys";
import { intakeSignatureSettings, type IntakeSignatureSettings } from "../webhooks/task-intake-auth";

export function intakeUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/hooks/${token}`;
}

async function registrationsFor(s: Store, rows: IntakeRow[]) {
  const autIds = [...new Set(rows.map((r) => r.automationId).filter((x): x is string => !!x))];
  const found = await s.registrations.ofAutomations(autIds);
  return new Map(found.map((f) => [`${f.automationId}/${f.nodeId}`, { upstreamId: f.upstreamId, expiresAt: f.expiresAt ?? null }]));
}

function toIntake(publicUrl: string, r: IntakeRow, reg: { upstreamId: string; expiresAt: string | null } | null) {
  return {
    id: r.id,
    kind: r.kind,
    key: r.key ?? null,
    name: r.name,
    appId: r.automationId ?? null,
    nodeId: r.nodeId ?? null,
    lineId: r.lineId ?? null,
    connectionId: r.connectionId ?? null,
    url: r.kind === "tracker" ? null : intakeUrl(publicUrl, r.token),
    status: r.status,
    statusMessage: r.statusMessage ?? null,
    lastEventAt: r.lastEventAt ?? null,
    eventCount: r.eventCount,
    refusedCount: r.refusedCount,
    lastRefused: r.lastRefused ?? null,
    registration: reg,
    signature: r.kind === "webhook" ? intakeSignatureSettings(r.config) : null,
    createdAt: r.createdAt,
  };
}

export async function listIntakes(deps: AppDeps, actor: Actor, workspaceId: string, q: { limit?: number; cursor?: string } = {}) {
  await requireWorkspace(deps.store, actor, workspaceId, "intake.read");
  const limit = Math.min(Math.max(q.limit ?? 50, 1), 200);
  const after = decodeCursor(deps.box, `intakes:${workspaceId}`, q.cursor, { c: "string", i: "string" });
  const rows = await deps.store.intakes.list(workspaceId, { limit: limit + 1, after: after ? { createdAt: after.c, id: after.i } : null });
  const page = rows.slice(0, limit);
  const regs = await registrationsFor(deps.store, page);
  const last = page[page.length - 1];
  return {
    data: page.map((r) => toIntake(deps.publicUrl, r, regs.get(`${r.automationId}/${r.nodeId}`) ?? null)),
    nextCursor: rows.length > limit && last ? encodeCursor(deps.box, `intakes:${workspaceId}`, { c: last.createdAt, i: last.id }) : null,
  };
}

export async function createWebhookIntake(
  deps: AppDeps,
  actor: Actor,
  workspaceId: string,
  input: { name: string; key?: string; lineId: string; open?: boolean } & Partial<IntakeSignatureSettings>,
) {
  const ws = await requireWorkspace(deps.store, actor, workspaceId, "intake.write");
  return deps.store.tx(async (s) => {
    const secret = newToken(24);
    const key = await chooseKey(s, "intake", workspaceId, input.name, input.key);
    const row = await insertWebhookIntakeTx(deps, s, actor, ws.organizationId, workspaceId, { ...input, key, secret });
    return { ...toIntake(deps.publicUrl, row, null), secret };
  });
}

async function lineOrThrow(s: Store, workspaceId: string, lineId: string) {
  const line = await s.lines.get(workspaceId, lineId);
  if (!line) throw new AppError("validation_failed", `Line ${lineId} does not exist in this workspace.`, [{ path: "lineId", message: "Unknown line" }]);
  return line;
}

/** The writes of a create inside the caller's transaction (also used by `conveyor apply`, which brings its own secret). */
export async function insertWebhookIntakeTx(
  deps: AppDeps,
  s: Store,
  actor: Actor,
  organizationId: string,
  workspaceId: string,
  input: { name: string; key: string; lineId: string; open?: boolean; secret: string } & Partial<IntakeSignatureSettings>,
): Promise<IntakeRow> {
  const line = await lineOrThrow(s, workspaceId, input.lineId);
  const at = deps.now().toISOString();
  const row: IntakeRow = {
    id: newId("int"),
    workspaceId,
    kind: "webhook",
    name: input.name,
    key: input.key,
    source: null,
    token: newToken(24),
    automationId: null,
    nodeId: null,
    connectionId: null,
    lineId: line.id,
    secretEnc: deps.box.encrypt(input.secret),
    config: { open: input.open ?? true, ...signatureConfig(input) },
    status: "active",
    statusMessage: null,
    lastEventAt: null,
    eventCount: 0,
    refusedCount: 0,
    lastRefused: null,
    createdAt: at,
    updatedAt: at,
  };
  await s.intakes.insert(row);
  await recordAudit(s, { organizationId, workspaceId, actor: actor.label, action: "intake.create", target: row.id, data: { lineId: line.id } });
  return row;
}

/** Name, line, open flag and (when given) the secret of a webhook intake; the URL stays. Inside the caller's transaction. */
export async function updateWebhookIntakeTx(
  deps: AppDeps,
  s: Store,
  actor: Actor,
  organizationId: string,
  row: IntakeRow,
  input: { name: string; lineId: string; open: boolean; secret?: string } & Partial<IntakeSignatureSettings>,
): Promise<IntakeRow> {
  await lineOrThrow(s, row.workspaceId, input.lineId);
  const next: IntakeRow = {
    ...row,
    name: input.name,
    lineId: input.lineId,
    config: { ...(row.config ?? {}), open: input.open, ...signatureConfig(input) },
    secretEnc: input.secret !== undefined ? deps.box.encrypt(input.secret) : row.secretEnc,
    updatedAt: deps.now().toISOString(),
  };
  await s.intakes.update(row.id, { name: next.name, lineId: next.lineId, config: next.config, secretEnc: next.secretEnc, updatedAt: next.updatedAt });
  await recordAudit(s, { organizationId, workspaceId: row.workspaceId, actor: actor.label, action: "intake.update", target: row.id });
  return next;
}

/** The signature settings as kept in the intake's config (only those given; `null` tolerance: the installation's). */
function signatureConfig(input: Partial<IntakeSignatureSettings>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (input.requireTimestampedSignature !== undefined) out.requireTimestampedSignature = input.requireTimestampedSignature;
  if (input.signatureToleranceSeconds !== undefined) out.signatureToleranceSeconds = input.signatureToleranceSeconds;
  return out;
}

/**
 * A webhook intake's signature settings (whether it requires the timestamped scheme, its tolerance).
 * A trigger's are settings of its node (`core.webhook`): 409 here.
 */
export async function updateWebhookIntakeSignature(
  deps: AppDeps,
  actor: Actor,
  workspaceId: string,
  intakeId: string,
  input: Partial<IntakeSignatureSettings>,
) {
  const ws = await requireWorkspace(deps.store, actor, workspaceId, "intake.write");
  return deps.store.tx(async (s) => {
    const row = await s.intakes.get(workspaceId, intakeId);
    if (!row) throw new AppError("not_found", `Intake ${intakeId} does not exist in this workspace.`);
    if (row.kind !== "webhook")
      throw new AppError(
        "conflict",
        `Intake ${intakeId} is a trigger's URL: set its signature settings on trigger node ${row.nodeId ?? "?"} of automation ${row.automationId ?? "?"}.`,
      );
    const next: IntakeRow = { ...row, config: { ...(row.config ?? {}), ...signatureConfig(input) }, updatedAt: deps.now().toISOString() };
    await s.intakes.update(row.id, { config: next.config, updatedAt: next.updatedAt });
    await recordAudit(s, {
      organizationId: ws.organizationId,
      workspaceId,
      actor: actor.label,
      action: "intake.update",
      target: row.id,
      data: signatureConfig(input),
    });
    const regs = await registrationsFor(s, [next]);
    return toIntake(deps.publicUrl, next, regs.get(`${next.automationId}/${next.nodeId}`) ?? null);
  });
}

export async function deleteWebhookIntake(deps: AppDeps, actor: Actor, workspaceId: string, intakeId: string) {
  const ws = await requireWorkspace(deps.store, actor, workspaceId, "intake.write");
  await deps.store.tx((s) => deleteWebhookIntakeTx(s, actor, ws.organizationId, workspaceId, intakeId));
}

/** The writes of a delete inside the caller's transaction. */
export async function deleteWebhookIntakeTx(s: Store, actor: Actor, organizationId: string, workspaceId: string, intakeId: string): Promise<void> {
  const row = await s.intakes.get(workspaceId, intakeId);
  if (!row) throw new AppError("not_found", `Intake ${intakeId} does not exist in this workspace.`);
  if (row.kind !== "webhook") {
    throw new AppError(
      "conflict",
      `Intake ${intakeId} belongs to trigger node ${row.nodeId ?? "?"} of automation ${row.automationId ?? "?"}; remove the trigger or disable the automation instead.`,
    );
  }
  await s.intakes.delete([intakeId]);
  await recordAudit(s, { organizationId, workspaceId, actor: actor.label, action: "intake.delete", target: intakeId });
}
