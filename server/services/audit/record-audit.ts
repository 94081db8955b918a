import { auditLog } from "@/db/schema";
import type { Db } from "@/db/client";
import { newId, nowIso } from "../../ids";
import { targetNames } from "./target-names";

/**
 * Appends an audit entry. The target's current name is kept in `data.targetName`, so the log still
 * names it after it is renamed or deleted (record a deletion before deleting the row).
 */
export function recordAudit(
  tx: Db,
  entry: { organizationId: string; workspaceId?: string | null; actor: string; action: string; target?: string; data?: Record<string, unknown> },
): void {
  const name = entry.target ? targetNames(tx, [entry.target]).get(entry.target) : undefined;
  const data = name ? { ...entry.data, targetName: name } : entry.data;
  tx.insert(auditLog).values({ id: newId("aud"), at: nowIso(), ...entry, data, workspaceId: entry.workspaceId ?? null }).run();
}
