import { auditLog } from "@/db/schema";
import type { Db } from "@/db/client";
import { newId, nowIso } from "../../ids";

export function recordAudit(
  tx: Db,
  entry: { organizationId: string; workspaceId?: string | null; actor: string; action: string; target?: string; data?: Record<string, unknown> },
): void {
  tx.insert(auditLog).values({ id: newId("aud"), at: nowIso(), ...entry, workspaceId: entry.workspaceId ?? null }).run();
}
