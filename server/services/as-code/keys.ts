/**
 * Stable keys of automations, lines and webhook intakes (unique per workspace): given on create
 * (from the name when not chosen), they identify a resource across workspaces in files. Rows made
 * before keys existed have none; they get a derived key (from the name, oldest first), which the
 * next apply stores.
 */
import { and, eq } from "drizzle-orm";
import { automations, intakes, lines } from "@/db/schema";
import type { Db } from "@/db/client";
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

type KeyedRow = { id: string; key: string | null; name: string; createdAt: string };

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

function keyedRows(db: Db, kind: ResourceKind, workspaceId: string): KeyedRow[] {
  const cols = (t: typeof automations | typeof lines | typeof intakes) => ({ id: t.id, key: t.key, name: t.name, createdAt: t.createdAt });
  if (kind === "automation") return db.select(cols(automations)).from(automations).where(eq(automations.workspaceId, workspaceId)).all();
  if (kind === "line") return db.select(cols(lines)).from(lines).where(eq(lines.workspaceId, workspaceId)).all();
  return db.select(cols(intakes)).from(intakes).where(and(eq(intakes.workspaceId, workspaceId), eq(intakes.kind, "webhook"))).all();
}

export function workspaceKeys(db: Db, kind: ResourceKind, workspaceId: string): Map<string, string> {
  return effectiveKeys(keyedRows(db, kind, workspaceId), kind);
}

/**
 * The key for a new (or re-keyed) resource: the wanted one when free (422 when another resource
 * has it), else one derived from the name.
 */
export function chooseKey(db: Db, kind: ResourceKind, workspaceId: string, name: string, wanted?: string | null, selfId?: string): string {
  const keys = workspaceKeys(db, kind, workspaceId);
  if (selfId) keys.delete(selfId);
  const taken = new Set(keys.values());
  if (wanted) {
    if (taken.has(wanted)) throw new AppError("validation_failed", `Another ${kind} in this workspace has the key "${wanted}".`, [{ path: "key", message: "Choose another key" }]);
    return wanted;
  }
  return allocateKey(taken, slugKey(name, kind));
}
