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
  await requireWorkspace(deps.store, actor, workspaceId, "intake.read");
  const limit = Math.min(Math.max(q.limit ?? 50, 1), 200);
  const after = decodeCursor(deps.box, q.cursor, { c: "string", i: "string" });
  const rows = await deps.store.intakes.list(workspaceId, { limit: limit + 1, after: after ? { createdAt: after.c, id: after.i } : null });
  const page = rows.slice(0, limit);
  const regs = await registrationsFor(deps.store, page);
  const last = page[page.length - 1];
  return {
    data: page.map((r) => toIntake(deps.publicUrl, r, regs.get(`${r.automationId}/${r.nodeId}`) ?? null)),
    nextCursor: rows.length > limit && last ? encodeCursor(deps.box, { c: last.createdAt, i: last.id }) : null,
  };
}

export async function createWebhookIntake(deps: AppDeps, actor: Actor, workspaceId: string, input: { name: string; lineId: string; open?: boolean }) {
  const ws = await requireWorkspace(deps.store, actor, workspaceId, "intake.write");
  return deps.store.tx(async (s) => {
    const line = await s.lines.get(workspaceId, input.lineId);
    if (!line) throw new AppError("validation_failed", `Line ${input.lineId} does not exist in this workspace.`, [{ path: "lineId", message: "Unknown line" }]);
    const secret = newToken(24);
    const at = deps.now().toISOString();
    const row: IntakeRow = {
      id: newId("int"),
      workspaceId,
      kind: "webhook",
      name: input.name,
      token: newToken(24),
      automationId: null,
      nodeId: null,
      connectionId: null,
      lineId: line.id,
      secretEnc: deps.box.encrypt(secret),
      config: { open: input.open ?? true },
      status: "active",
      statusMessage: null,
      lastEventAt: null,
      eventCount: 0,
      createdAt: at,
      updatedAt: at,
    };
    await s.intakes.insert(row);
    await recordAudit(s, { organizationId: ws.organizationId, workspaceId, actor: actor.label, action: "intake.create", target: row.id, data: { lineId: line.id } });
    return { ...toIntake(deps.publicUrl, row, null), secret };
  });
}

export async function deleteWebhookIntake(deps: AppDeps, actor: Actor, workspaceId: string, intakeId: string) {
  const ws = await requireWorkspace(deps.store, actor, workspaceId, "intake.write");
  await deps.store.tx(async (s) => {
    const row = await s.intakes.get(workspaceId, intakeId);
    if (!row) throw new AppError("not_found", `Intake ${intakeId} does not exist in this workspace.`);
    if (row.kind !== "webhook") {
      throw new AppError("conflict", `Intake ${intakeId} belongs to trigger node ${row.nodeId ?? "?"} of automation ${row.automationId ?? "?"}; remove the trigger or disable the automation instead.`);
    }
    await s.intakes.delete([intakeId]);
    await recordAudit(s, { organizationId: ws.organizationId, workspaceId, actor: actor.label, action: "intake.delete", target: intakeId });
  });
}
