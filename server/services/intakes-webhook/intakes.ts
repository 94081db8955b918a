/**
 * Intakes as the API lists them, and webhook intakes (a JSON POST to the URL creates a task on a
 * line). The secret is returned once on creation and stored encrypted.
 */
import { and, asc, eq, gt, inArray, or, type SQL } from "drizzle-orm";
import { intakes, lines, webhookRegistrations, webhookRegistrationUsers } from "@/db/schema";
import { transaction, type Db } from "@/db/client";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError } from "../../errors";
import { newId, newToken } from "../../ids";
import { requireWorkspace } from "../access";
import { recordAudit } from "../audit/record-audit";
import { decodeCursor, encodeCursor } from "../tasks/cursor";
import { chooseKey } from "../as-code/keys";

export type IntakeRow = typeof intakes.$inferSelect;

export function intakeUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/hooks/${token}`;
}

function registrationsFor(db: Db, rows: IntakeRow[]) {
  const autIds = [...new Set(rows.map((r) => r.automationId).filter((x): x is string => !!x))];
  if (!autIds.length) return new Map<string, { upstreamId: string; expiresAt: string | null }>();
  const found = db
    .select({ automationId: webhookRegistrationUsers.automationId, nodeId: webhookRegistrationUsers.nodeId, upstreamId: webhookRegistrations.upstreamId, expiresAt: webhookRegistrations.expiresAt })
    .from(webhookRegistrationUsers)
    .innerJoin(webhookRegistrations, eq(webhookRegistrations.id, webhookRegistrationUsers.registrationId))
    .where(inArray(webhookRegistrationUsers.automationId, autIds))
    .all();
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
    registration: reg,
    createdAt: r.createdAt,
  };
}

export async function listIntakes(deps: AppDeps, actor: Actor, workspaceId: string, q: { limit?: number; cursor?: string } = {}) {
  await requireWorkspace(deps.db, actor, workspaceId, "intake.read");
  const limit = Math.min(Math.max(q.limit ?? 50, 1), 200);
  const after = decodeCursor(q.cursor, { c: "string", i: "string" });
  const conds: SQL[] = [eq(intakes.workspaceId, workspaceId)];
  if (after) conds.push(or(gt(intakes.createdAt, after.c), and(eq(intakes.createdAt, after.c), gt(intakes.id, after.i)))!);
  const rows = deps.db.select().from(intakes).where(and(...conds)).orderBy(asc(intakes.createdAt), asc(intakes.id)).limit(limit + 1).all();
  const page = rows.slice(0, limit);
  const regs = registrationsFor(deps.db, page);
  const last = page[page.length - 1];
  return {
    data: page.map((r) => toIntake(deps.publicUrl, r, regs.get(`${r.automationId}/${r.nodeId}`) ?? null)),
    nextCursor: rows.length > limit && last ? encodeCursor({ c: last.createdAt, i: last.id }) : null,
  };
}

export async function createWebhookIntake(deps: AppDeps, actor: Actor, workspaceId: string, input: { name: string; key?: string; lineId: string; open?: boolean }) {
  const ws = await requireWorkspace(deps.db, actor, workspaceId, "intake.write");
  return transaction(deps.db, (tx) => {
    const secret = newToken(24);
    const row = insertWebhookIntakeTx(deps, tx, actor, ws.organizationId, workspaceId, { ...input, key: chooseKey(tx, "intake", workspaceId, input.name, input.key), secret });
    return { ...toIntake(deps.publicUrl, row, null), secret };
  });
}

function lineOrThrow(tx: Db, workspaceId: string, lineId: string) {
  const line = tx.select().from(lines).where(and(eq(lines.id, lineId), eq(lines.workspaceId, workspaceId))).get();
  if (!line) throw new AppError("validation_failed", `Line ${lineId} does not exist in this workspace.`, [{ path: "lineId", message: "Unknown line" }]);
  return line;
}

/** The writes of a create inside the caller's transaction (also used by `conveyor apply`, which brings its own secret). */
export function insertWebhookIntakeTx(deps: AppDeps, tx: Db, actor: Actor, organizationId: string, workspaceId: string, input: { name: string; key: string; lineId: string; open?: boolean; secret: string }): IntakeRow {
  const line = lineOrThrow(tx, workspaceId, input.lineId);
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
    config: { open: input.open ?? true },
    status: "active",
    statusMessage: null,
    lastEventAt: null,
    eventCount: 0,
    createdAt: at,
    updatedAt: at,
  };
  tx.insert(intakes).values(row).run();
  recordAudit(tx, { organizationId, workspaceId, actor: actor.label, action: "intake.create", target: row.id, data: { lineId: line.id } });
  return row;
}

/** Name, line, open flag and (when given) the secret of a webhook intake; the URL stays. Inside the caller's transaction. */
export function updateWebhookIntakeTx(deps: AppDeps, tx: Db, actor: Actor, organizationId: string, row: IntakeRow, input: { name: string; lineId: string; open: boolean; secret?: string }): IntakeRow {
  lineOrThrow(tx, row.workspaceId, input.lineId);
  const next: IntakeRow = {
    ...row, name: input.name, lineId: input.lineId, config: { ...(row.config ?? {}), open: input.open },
    secretEnc: input.secret !== undefined ? deps.box.encrypt(input.secret) : row.secretEnc, updatedAt: deps.now().toISOString(),
  };
  tx.update(intakes).set({ name: next.name, lineId: next.lineId, config: next.config, secretEnc: next.secretEnc, updatedAt: next.updatedAt }).where(eq(intakes.id, row.id)).run();
  recordAudit(tx, { organizationId, workspaceId: row.workspaceId, actor: actor.label, action: "intake.update", target: row.id });
  return next;
}

export async function deleteWebhookIntake(deps: AppDeps, actor: Actor, workspaceId: string, intakeId: string) {
  const ws = await requireWorkspace(deps.db, actor, workspaceId, "intake.write");
  transaction(deps.db, (tx) => deleteWebhookIntakeTx(tx, actor, ws.organizationId, workspaceId, intakeId));
}

/** The writes of a delete inside the caller's transaction. */
export function deleteWebhookIntakeTx(tx: Db, actor: Actor, organizationId: string, workspaceId: string, intakeId: string): void {
  const row = tx.select().from(intakes).where(and(eq(intakes.id, intakeId), eq(intakes.workspaceId, workspaceId))).get();
  if (!row) throw new AppError("not_found", `Intake ${intakeId} does not exist in this workspace.`);
  if (row.kind !== "webhook") {
    throw new AppError("conflict", `Intake ${intakeId} belongs to trigger node ${row.nodeId ?? "?"} of automation ${row.automationId ?? "?"}; remove the trigger or disable the automation instead.`);
  }
  tx.delete(intakes).where(eq(intakes.id, intakeId)).run();
  recordAudit(tx, { organizationId, workspaceId, actor: actor.label, action: "intake.delete", target: intakeId });
}
