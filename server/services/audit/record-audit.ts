import type { Store } from "@/db/store";
import { newId, nowIso } from "../../ids";

/** Records an audit entry (in the caller's transaction when `s` is bound to one). */
export function recordAudit(
  s: Store | LegacyDb,
  entry: { organizationId: string; workspaceId?: string | null; actor: string; action: string; target?: string; data?: Record<string, unknown> },
): Promise<void> {
  const row = { id: newId("aud"), at: nowIso(), target: null, data: null, ...entry, workspaceId: entry.workspaceId ?? null };
  if ("$client" in s) {
    // TODO(seam): remove once every caller passes the store (legacy synchronous transactions).
    s.$client
      .prepare("insert into audit_log (id, organization_id, workspace_id, actor, action, target, data, at) values (?, ?, ?, ?, ?, ?, ?, ?)")
      .run(row.id, row.organizationId, row.workspaceId, row.actor, row.action, row.target ?? null, row.data ? JSON.stringify(row.data) : null, row.at);
    return Promise.resolve();
  }
  return s.audit.record(row);
}

type LegacyDb = import("@/db/client").Db;
