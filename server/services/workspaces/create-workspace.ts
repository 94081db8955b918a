import { lines, workspaces } from "@/db/schema";
import type { Db } from "@/db/client";
import { transaction } from "@/db/client";
import type { Actor } from "../../auth/permissions";
import { assertCan } from "../../auth/permissions";
import { AppError } from "../../errors";
import { newId, nowIso } from "../../ids";
import { recordAudit } from "../audit/record-audit";
import type { AppDeps } from "../../deps";

/** Inserts a workspace and its `default` line (inside the caller's transaction). */
export function createWorkspaceRow(tx: Db, organizationId: string, name: string) {
  const now = nowIso();
  const ws = { id: newId("ws"), organizationId, name, createdAt: now, updatedAt: now };
  tx.insert(workspaces).values(ws).run();
  tx.insert(lines).values({ id: newId("lin"), workspaceId: ws.id, name: "default", key: "default", steps: [], createdAt: now, updatedAt: now }).run();
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
  const { db } = deps;
  assertCan(actor, "workspace.create");
  const name = validateWorkspaceName(input.name);
  if (!actor.organizationId) throw new AppError("bad_request", "No organization");
  const orgId = actor.organizationId;
  return transaction(db, (tx) => {
    const ws = createWorkspaceRow(tx, orgId, name);
    recordAudit(tx, { organizationId: orgId, workspaceId: ws.id, actor: actor.label, action: "workspace.create", target: ws.id });
    return ws;
  });
}
