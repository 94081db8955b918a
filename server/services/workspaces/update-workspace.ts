import { eq } from "drizzle-orm";
import { workspaces } from "@/db/schema";
import type { AppDeps } from "../../deps";
import { transaction } from "@/db/client";
import type { Actor } from "../../auth/permissions";
import { nowIso } from "../../ids";
import { requireWorkspace } from "../access";
import { recordAudit } from "../audit/record-audit";
import { validateWorkspaceName } from "./create-workspace";

export async function renameWorkspace({ db }: AppDeps, actor: Actor, workspaceId: string, input: { name: string }) {
  const ws = await requireWorkspace(db, actor, workspaceId, "workspace.update");
  const name = validateWorkspaceName(input.name);
  return transaction(db, (tx) => {
    const updatedAt = nowIso();
    tx.update(workspaces).set({ name, updatedAt }).where(eq(workspaces.id, workspaceId)).run();
    recordAudit(tx, { organizationId: ws.organizationId, workspaceId, actor: actor.label, action: "workspace.rename", target: workspaceId, data: { name } });
    return { ...ws, name, updatedAt };
  });
}

export async function deleteWorkspace({ db }: AppDeps, actor: Actor, workspaceId: string) {
  const ws = await requireWorkspace(db, actor, workspaceId, "workspace.delete");
  transaction(db, (tx) => {
    tx.delete(workspaces).where(eq(workspaces.id, workspaceId)).run();
    recordAudit(tx, { organizationId: ws.organizationId, workspaceId, actor: actor.label, action: "workspace.delete", target: workspaceId });
  });
}
