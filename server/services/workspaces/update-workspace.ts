import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { nowIso } from "../../ids";
import { requireWorkspace } from "../access";
import { recordAudit } from "../audit/record-audit";
import { validateWorkspaceName } from "./create-workspace";

export async function renameWorkspace({ store }: AppDeps, actor: Actor, workspaceId: string, input: { name: string }) {
  const ws = await requireWorkspace(store, actor, workspaceId, "workspace.update");
  const name = validateWorkspaceName(input.name);
  return store.tx(async (s) => {
    const updatedAt = nowIso();
    await s.workspaces.update(workspaceId, { name, updatedAt });
    await recordAudit(s, {
      organizationId: ws.organizationId,
      workspaceId,
      actor: actor.label,
      action: "workspace.rename",
      target: workspaceId,
      data: { name },
    });
    return { ...ws, name, updatedAt };
  });
}

export async function deleteWorkspace({ store }: AppDeps, actor: Actor, workspaceId: string) {
  const ws = await requireWorkspace(store, actor, workspaceId, "workspace.delete");
  await store.tx(async (s) => {
    await s.workspaces.delete(workspaceId);
    await recordAudit(s, { organizationId: ws.organizationId, workspaceId, actor: actor.label, action: "workspace.delete", target: workspaceId });
  });
}
