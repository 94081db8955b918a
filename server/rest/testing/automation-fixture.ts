/**
 * Test rows written and read straight in the tables (raw SQL that runs on SQLite and PostgreSQL):
 * a minimal automation (one manual trigger) for tests that need an app id, and an intake row.
 */
import type { IntakeRow } from "@/db/types";
import type { TestDeps } from "../../testing";
import { newId } from "../../ids";

type Deps = Pick<TestDeps, "sql" | "store">;

export async function insertAutomation(deps: Deps, workspaceId: string, name = "Step app"): Promise<string> {
  const at = new Date().toISOString();
  const id = newId("aut");
  const graph = JSON.stringify({ nodes: [{ id: "n1", name: "start", key: "core.manual", config: {}, position: { x: 0, y: 0 } }], edges: [] });
  const enabled = deps.store.dialect === "sqlite" ? 1 : true; // SQLite binds no booleans
  await deps.sql(
    "insert into automations (id, workspace_id, name, description, enabled, concurrency, version, graph, created_at, updated_at) values (?, ?, ?, '', ?, 5, 1, ?, ?, ?)",
    id, workspaceId, name, enabled, graph, at, at,
  );
  await deps.sql("insert into automation_versions (id, automation_id, version, name, description, graph, created_at) values (?, ?, 1, ?, '', ?, ?)", newId("ver"), id, name, graph, at);
  return id;
}

export async function readIntake(deps: Deps, id: string): Promise<IntakeRow | undefined> {
  const [r] = await deps.sql<Record<string, unknown>>("select * from intakes where id = ?", id);
  if (!r) return undefined;
  const config = typeof r.config === "string" ? JSON.parse(r.config) : r.config;
  return {
    id: r.id, workspaceId: r.workspace_id, kind: r.kind, name: r.name, token: r.token, automationId: r.automation_id, nodeId: r.node_id,
    connectionId: r.connection_id, lineId: r.line_id, secretEnc: r.secret_enc, config, status: r.status, statusMessage: r.status_message,
    lastEventAt: r.last_event_at, eventCount: Number(r.event_count), createdAt: r.created_at, updatedAt: r.updated_at,
  } as IntakeRow;
}
