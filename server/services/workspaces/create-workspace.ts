import type { Store } from "@/db/store";
import type { Actor } from "../../auth/permissions";
import { assertCan, assertOrganizationWide } from "../../auth/permissions";
import { AppError } from "../../errors";
import { newId, nowIso } from "../../ids";
import { recordAudit } from "../audit/record-audit";
import type { AppDeps } from "../../deps";

/** Inserts a workspace and its `default` line (in the caller's transaction when `s` is bound to one). */
export async function createWorkspaceRow(s: Store, organizationId: string, name: string) {
  const now = nowIso();
  const ws = { id: newId("ws"), organizationId, name, createdAt: now, updatedAt: now };
  await s.tx(async (x) => {
    await x.workspaces.insert(ws);
    await x.lines.insert({ id: newId("lin"), workspaceId: ws.id, name: "default", key: "default", source: null, steps: [], createdAt: now, updatedAt: now });
  });
  return ws;
}

export function validateWorkspaceName(name: unknown): string {
  const n = typeof name === "string" ? name.trim() : "";
  if (!n || n.length > 100) {
    throw new AppError("validation_failed", "A workspace name needs 1 to 100 characters.", [{ path: "name", message: "1 to 100 characters" }]);
  }
  return n;
}

export async function createWorkspace(deps: AppDeps, actor: Actor, input: { name: string }) {
  assertCan(actor, "workspace.create");
  assertOrganizationWide(actor, "create workspaces");
  const name = validateWorkspaceName(input.name);
  if (!actor.organizationId) throw new AppError("bad_request", "No organization");
  const orgId = actor.organizationId;
  return deps.store.tx(async (s) => {
    const ws = await createWorkspaceRow(s, orgId, name);
    await recordAudit(s, { organizationId: orgId, workspaceId: ws.id, actor: actor.label, action: "workspace.create", target: ws.id });
    return ws;
  });
}
