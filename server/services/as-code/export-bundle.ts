/** The workspace in file form (GET …/export, `conveyor export`): automations, lines and webhook intakes by key. */
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { requireWorkspace } from "../access";
import { loadWorkspaceRows, WorkspaceState } from "./workspace-state";

export async function exportBundle(deps: AppDeps, actor: Actor, workspaceId: string) {
  const ws = await requireWorkspace(deps.store, actor, workspaceId, "automation.read");
  const state = new WorkspaceState(await loadWorkspaceRows(deps.store, workspaceId));
  const byKey = <T extends { key: string }>(xs: T[]) => xs.sort((a, b) => a.key.localeCompare(b.key));
  return {
    workspace: { id: ws.id, name: ws.name },
    apps: byKey(state.rows.automations.map((r) => state.appSpec(r))),
    lines: byKey(state.rows.lines.map((r) => state.lineSpec(r))),
    intakes: byKey(state.rows.intakes.map((r) => state.intakeSpec(r))),
  };
}
