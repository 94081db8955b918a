/** Inserts a minimal automation (one manual trigger) straight into the tables, for tests that need an app id. */
import type { AppDeps } from "../../deps";
import { automations, automationVersions } from "@/db/schema";
import { newId } from "../../ids";

export function insertAutomation(deps: AppDeps, workspaceId: string, name = "Step app") {
  const at = new Date().toISOString();
  const id = newId("aut");
  const graph = { nodes: [{ id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } }], edges: [] };
  deps.db.insert(automations).values({ id, workspaceId, name, description: "", enabled: true, concurrency: 5, version: 1, graph, createdAt: at, updatedAt: at }).run();
  deps.db.insert(automationVersions).values({ id: newId("ver"), automationId: id, version: 1, name, description: "", graph, createdAt: at }).run();
  return id;
}
