/**
 * Organization API keys: `cvk_<prefix>_<secret>`, shown once, stored as a SHA-256 hash, listed by
 * prefix, with role, optional workspace list, optional expiry, last-used time, revocable.
 * The plaintext key never reaches logs, activity or the audit log.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { ApiKeyRow } from "@/db/types";
import type { AppDeps } from "../../deps";
import { assertCan, type Actor, type ApiKeyRole } from "../../auth/permissions";
import { AppError } from "../../errors";
import { newId, newToken } from "../../ids";
import { recordAudit } from "../audit/record-audit";
import { requireWorkspace } from "../access";

export const API_KEY_ROLES = ["admin", "editor", "operator", "viewer"] as const satisfies readonly ApiKeyRole[];
const KEY_RE = /^cvk_([a-z0-9]{8})_([A-Za-z0-9_-]{20,})$/;

export type { ApiKeyRow };
/** What is listed: everything but the hash. */
export type ApiKeyRecord = Omit<ApiKeyRow, "hash"> & { status: "active" | "revoked" | "expired" };

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

function toRecord(row: ApiKeyRow, now: Date): ApiKeyRecord {
  const { hash: _hash, ...rest } = row;
  const status = row.revokedAt ? "revoked" : row.expiresAt && Date.parse(row.expiresAt) <= now.getTime() ? "expired" : "active";
  return { ...rest, status };
}

export interface CreateApiKeyInput {
  name: string;
  role: ApiKeyRole;
  /** null/undefined = every workspace of the organization. */
  workspaceIds?: string[] | null;
  /** ISO timestamp; must be in the future. */
  expiresAt?: string | null;
}

export async function createApiKey(deps: AppDeps, actor: Actor, input: CreateApiKeyInput): Promise<{ key: string; record: ApiKeyRecord }> {
  assertCan(actor, "apikey.manage");
  const orgId = actor.organizationId;
  if (!orgId) throw new AppError("bad_request", "API keys belong to an organization; this caller has none.");
  const problems: { path: string; message: string }[] = [];
  const name = typeof input.name === "string" ? input.name.trim() : "";
  if (!name || name.length > 100) problems.push({ path: "name", message: "1 to 100 characters" });
  if (!API_KEY_ROLES.includes(input.role)) problems.push({ path: "role", message: `One of ${API_KEY_ROLES.join(", ")}` });
  let expiresAt: string | null = null;
  if (input.expiresAt) {
    const t = Date.parse(input.expiresAt);
    if (Number.isNaN(t)) problems.push({ path: "expiresAt", message: "An ISO 8601 timestamp" });
    else if (t <= deps.now().getTime()) problems.push({ path: "expiresAt", message: "Must be in the future" });
    else expiresAt = new Date(t).toISOString();
  }
  if (problems.length) throw new AppError("validation_failed", "The API key settings are not valid.", problems);
  // An API key may only hand out what it can see itself; a user admin sees the whole organization.
  if (actor.kind === "apiKey" && actor.role !== "admin") throw new AppError("forbidden", "Only admin keys may create keys.");
  const workspaceIds = input.workspaceIds ? [...new Set(input.workspaceIds)] : null;
  if (workspaceIds) for (const id of workspaceIds) await requireWorkspace(deps.store, actor, id, "workspace.read");
  if (actor.kind === "apiKey" && actor.workspaceIds && !workspaceIds) {
    throw new AppError("validation_failed", "A key limited to some workspaces may only create keys limited to them.", [
      { path: "workspaceIds", message: "Required for a key limited to workspaces" },
    ]);
  }

  const prefix = newId("", 8).slice(1); // 8 base-36 chars
  const key = `cvk_${prefix}_${newToken(32)}`;
  const row: ApiKeyRow = {
    id: newId("key"),
    organizationId: orgId,
    name,
    prefix: `cvk_${prefix}`,
    hash: hashApiKey(key),
    role: input.role,
    workspaceIds,
    createdBy: actor.label,
    createdAt: deps.now().toISOString(),
    lastUsedAt: null,
    expiresAt,
    revokedAt: null,
  };
  await deps.store.tx(async (s) => {
    await s.apiKeys.insert(row);
    await recordAudit(s, {
      organizationId: orgId,
      actor: actor.label,
      action: "apikey.create",
      target: row.id,
      data: { name, role: row.role, prefix: row.prefix, workspaceIds },
    });
  });
  return { key, record: toRecord(row, deps.now()) };
}

export async function listApiKeys(deps: AppDeps, actor: Actor): Promise<ApiKeyRecord[]> {
  assertCan(actor, "apikey.manage");
  if (!actor.organizationId) return [];
  const rows = await deps.store.apiKeys.list(actor.organizationId);
  const now = deps.now();
  return rows.map((r) => toRecord(r, now));
}

export async function revokeApiKey(deps: AppDeps, actor: Actor, keyId: string): Promise<ApiKeyRecord> {
  assertCan(actor, "apikey.manage");
  const orgId = actor.organizationId;
  const row = await deps.store.apiKeys.get(orgId ?? "", keyId);
  if (!row) throw new AppError("not_found", `API key ${keyId} does not exist.`);
  if (row.revokedAt) return toRecord(row, deps.now());
  const revokedAt = deps.now().toISOString();
  const revoked = await deps.store.tx(async (s) => {
    // Only the caller that actually revokes records it (two admins racing: one audit entry).
    if (!(await s.apiKeys.revoke(keyId, revokedAt))) return false;
    await recordAudit(s, { organizationId: row.organizationId, actor: actor.label, action: "apikey.revoke", target: keyId, data: { prefix: row.prefix } });
    return true;
  });
  if (!revoked) return toRecord((await deps.store.apiKeys.get(row.organizationId, keyId)) ?? row, deps.now());
  return toRecord({ ...row, revokedAt }, deps.now());
}

export type ApiKeyAuthFailure = "missing" | "malformed" | "unknown" | "revoked" | "expired";
const FAILURE_DETAIL: Record<ApiKeyAuthFailure, string> = {
  missing: "No API key: send `Authorization: Bearer <key>`.",
  malformed: "The Authorization header is not `Bearer cvk_<prefix>_<secret>`.",
  unknown: "This API key is not known; check that it was copied whole.",
  revoked: "This API key has been revoked; ask an admin for a new one.",
  expired: "This API key has expired; ask an admin for a new one.",
};

export class ApiKeyAuthError extends AppError {
  constructor(readonly reason: ApiKeyAuthFailure) {
    // RFC 6750 §3.1: no error code when the request had no credentials at all; a header that is not
    // `Bearer <token>` is an invalid_request; a key that does not (or no longer) work an invalid_token.
    const error = reason === "missing" ? "" : `, error="${reason === "malformed" ? "invalid_request" : "invalid_token"}", error_description="${reason}"`;
    super("unauthorized", FAILURE_DETAIL[reason], undefined, { "WWW-Authenticate": `Bearer realm="conveyor"${error}` });
  }
}

/** Touching last-used on every call would serialize reads on the write lock; once a minute is enough. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolves `Authorization` (the whole header value or just the key) to an API-key Actor,
 * or throws ApiKeyAuthError (401, `WWW-Authenticate: Bearer`) saying why.
 */
export async function authenticateApiKey(deps: AppDeps, authorization: string | null | undefined): Promise<Extract<Actor, { kind: "apiKey" }>> {
  const header = (authorization ?? "").trim();
  if (!header) throw new ApiKeyAuthError("missing");
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  const key = m ? m[1]! : header.startsWith("cvk_") ? header : null;
  if (!key || !KEY_RE.test(key)) throw new ApiKeyAuthError("malformed");
  const hash = hashApiKey(key);
  const row = await deps.store.apiKeys.findByHash(hash);
  if (!row || !timingSafeEqual(Buffer.from(row.hash, "hex"), Buffer.from(hash, "hex"))) throw new ApiKeyAuthError("unknown");
  if (row.revokedAt) throw new ApiKeyAuthError("revoked");
  const now = deps.now();
  if (row.expiresAt && Date.parse(row.expiresAt) <= now.getTime()) throw new ApiKeyAuthError("expired");
  if (!row.lastUsedAt || now.getTime() - Date.parse(row.lastUsedAt) > LAST_USED_RESOLUTION_MS) {
    // Guarded: of many processes seeing a stale value at once, the first write wins and the rest match nothing.
    await deps.store.apiKeys.touchLastUsed(row.id, now.toISOString(), new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString());
  }
  return {
    kind: "apiKey",
    keyId: row.id,
    organizationId: row.organizationId,
    role: row.role,
    workspaceIds: row.workspaceIds ?? null,
    label: `api-key:${row.prefix} (${row.name})`,
  };
}
