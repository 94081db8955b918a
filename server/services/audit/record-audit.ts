import type { Store } from "@/db/store";
import { newId, nowIso } from "../../ids";

/**
 * Appends an audit entry (in the caller's transaction when `s` is bound to one). The target's current
 * name is kept in `data.targetName`, so the log still names it after it is renamed or deleted (record
 * a deletion before deleting the row).
 */
export async function recordAudit(
  s: Store,
  entry: { organizationId: string; workspaceId?: string | null; actor: string; action: string; target?: string; data?: Record<string, unknown> },
): Promise<void> {
  const name = entry.target ? (await s.audit.targetNames([entry.target])).get(entry.target) : undefined;
  const data = name ? { ...entry.data, targetName: name } : (entry.data ?? null);
  await s.audit.record({ id: newId("aud"), at: nowIso(), ...entry, target: entry.target ?? null, data, workspaceId: entry.workspaceId ?? null });
}
