/**
 * Stable keys of automations, lines and webhook intakes (unique per workspace): given on create
 * (from the name when not chosen), they identify a resource across workspaces in files. Rows made
 * before keys existed have none; they get a derived key (from the name, oldest first), which the
 * next apply stores.
 */
import type { Store } from "@/db/store";
import type { KeyedRow } from "@/db/types";
import { AppError } from "../../errors";
import { RESOURCE_KEY_RE, type ResourceKind } from "../../contracts/as-code";

export function slugKey(name: string, fallback: string): string {
  const s = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "-")
    .replace(/^[-_]+|[-_]+$/g, "")
    .slice(0, 56)
    .replace(/[-_]+$/, "");
  return RESOURCE_KEY_RE.test(s) ? s : fallback;
}

export function allocateKey(taken: Set<string>, base: string): string {
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

/** id → key, deriving keys for rows without one (oldest first, never clashing with stored keys). */
export function effectiveKeys(rows: KeyedRow[], fallback: string): Map<string, string> {
  const taken = new Set(rows.map((r) => r.key).filter((k): k is string => !!k));
  const out = new Map<string, string>();
  for (const r of [...rows].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))) {
    if (r.key) out.set(r.id, r.key);
    else {
      const k = allocateKey(taken, slugKey(r.name, fallback));
      taken.add(k);
      out.set(r.id, k);
    }
  }
  return out;
}

function keyedRows(s: Store, kind: ResourceKind, workspaceId: string): Promise<KeyedRow[]> {
  if (kind === "automation") return s.automations.keys(workspaceId);
  if (kind === "line") return s.lines.keys(workspaceId);
  return s.intakes.webhookKeys(workspaceId);
}

export async function workspaceKeys(s: Store, kind: ResourceKind, workspaceId: string): Promise<Map<string, string>> {
  return effectiveKeys(await keyedRows(s, kind, workspaceId), kind);
}

/**
 * The key for a new (or re-keyed) resource: the wanted one when free (422 when another resource
 * has it), else one derived from the name. Call it inside the transaction that writes the key (the
 * unique index settles a race between two writers).
 */
export async function chooseKey(s: Store, kind: ResourceKind, workspaceId: string, name: string, wanted?: string | null, selfId?: string): Promise<string> {
  const keys = await workspaceKeys(s, kind, workspaceId);
  if (selfId) keys.delete(selfId);
  const taken = new Set(keys.values());
  if (wanted) {
    if (taken.has(wanted))
      throw new AppError("validation_failed", `Another ${kind} in this workspace has the key "${wanted}".`, [{ path: "key", message: "Choose another key" }]);
    return wanted;
  }
  return allocateKey(taken, slugKey(name, kind));
}
