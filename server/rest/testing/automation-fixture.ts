/** Inserts a minimal automation (one manual trigger) straight through the store, for tests that need an app id. */
import type { AppDeps } from "../../deps";
import { newId } from "../../ids";

export async function insertAutomation(deps: Pick<AppDeps, "store">, workspaceId: string, name = "Step app"): Promise<string> {
  const at = new Date().toISOString();
  const id = newId("aut");
  const graph = { nodes: [{ id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } }], edges: [] };
  await deps.store.tx(async (s) => {
    await s.automations.insert({
      id,
      workspaceId,
      name,
      description: "",
      enabled: true,
      concurrency: 5,
      version: 1,
      graph,
      errorHandlerId: null,
      problems: null,
      createdBy: null,
      createdAt: at,
      updatedAt: at,
    });
    await s.automations.insertVersion({ id: newId("ver"), automationId: id, version: 1, name, description: "", graph, createdBy: null, createdAt: at });
  });
  return id;
}
