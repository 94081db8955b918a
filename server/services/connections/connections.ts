/**
 * Connections: an integration configured in a workspace. Sensitive fields (UI meta `sensitive`)
 * are stored encrypted in `secretsEnc` and never returned; an update that omits a secret keeps it.
 */
import { isDeepStrictEqual } from "node:util";
import { createHttpClient } from "@/integrations/core/http";
import { findIntegration } from "@/integrations/registry";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError, issueMessage, notFound } from "../../errors";
import { newId } from "../../ids";
import { requireWorkspace } from "../access";
import { recordAudit } from "../audit/record-audit";
import { strippedKeys } from "../stripped-keys";
import { connectionSettings, loadConnectionHandle, type ConnectionRow } from "./load-connection";
import { mergeSecrets, splitSecrets } from "./secrets";
import { assertBaseUrlsAllowed } from "./check-base-urls";

export interface ConnectionView {
  id: string;
  workspaceId: string;
  integration: string;
  kind: "form" | "oauth2";
  name: string;
  config: Record<string, unknown>;
  /** Names (dotted paths) of secret fields that are set (values never returned). */
  secretsSet: string[];
  status: ConnectionRow["status"];
  statusMessage: string | null;
  state: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

function paths(obj: Record<string, unknown>, prefix = ""): string[] {
  return Object.entries(obj).flatMap(([k, v]) =>
    v && typeof v === "object" && !Array.isArray(v) ? paths(v as Record<string, unknown>, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
}

export function toConnectionView(deps: AppDeps, row: ConnectionRow): ConnectionView {
  const integration = findIntegration(row.integration);
  const secrets = row.secretsEnc ? deps.box.decryptJson<Record<string, unknown>>(row.secretsEnc) : {};
  const { choices: _c, ...state } = (row.state ?? {}) as Record<string, unknown>;
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    integration: row.integration,
    kind: integration?.connection?.kind ?? "form",
    name: row.name,
    config: row.config,
    secretsSet: paths(secrets),
    status: row.status,
    statusMessage: row.statusMessage ?? null,
    state: { ...state, ...(_c ? { siteChoices: _c } : {}) },
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * `state.verifiedAt`: when the connection's settings last passed a test (verify). A form connection
 * is "ready" as soon as its settings are valid; without this, the editor cannot tell one that works
 * from one never tried (it shows "not tested").
 */
function withoutVerifiedAt(state: ConnectionRow["state"] | null | undefined): Record<string, unknown> {
  const { verifiedAt: _was, ...rest } = (state ?? {}) as Record<string, unknown>;
  return rest;
}

function integrationOrThrow(key: string) {
  const integration = findIntegration(key);
  if (!integration?.connection)
    throw new AppError("validation_failed", `Unknown integration "${key}"`, [
      { path: "integration", message: "Unknown integration or it needs no connection" },
    ]);
  return { integration, def: integration.connection };
}

/** `sent`: the settings as the caller wrote them (an update merges stored secrets into `config`; those are not the caller's). */
function parseSettings(schema: import("zod").ZodType, config: unknown, sent: unknown = config) {
  const parsed = schema.safeParse(config);
  const problems = parsed.success
    ? strippedKeys(sent, parsed.data, "config").map((k) => ({ path: k.path, message: `Unknown field: ${k.key}` }))
    : parsed.error.issues.map((i) => ({ path: ["config", ...i.path.map(String)].join("."), message: issueMessage(i) }));
  if (problems.length) throw new AppError("validation_failed", "The connection settings are invalid; see `errors` for each field.", problems);
  return parsed.data as Record<string, unknown>;
}

export async function getConnectionRow(deps: AppDeps, workspaceId: string, connectionId: string): Promise<ConnectionRow> {
  const row = await deps.store.connections.get(workspaceId, connectionId);
  if (!row) throw notFound("Connection", connectionId);
  return row;
}

export async function createConnection(
  deps: AppDeps,
  actor: Actor,
  workspaceId: string,
  input: { integration: string; name: string; config: Record<string, unknown> },
) {
  const ws = await requireWorkspace(deps.store, actor, workspaceId, "connection.write");
  const { def } = integrationOrThrow(input.integration);
  const settings = parseSettings(def.schema, input.config);
  await assertBaseUrlsAllowed(settings);
  const { plain, secrets } = splitSecrets(def.schema, settings);
  const at = deps.now().toISOString();
  const row: ConnectionRow = {
    id: newId("con"),
    workspaceId,
    integration: input.integration,
    name: input.name.trim(),
    config: plain,
    secretsEnc: Object.keys(secrets).length ? deps.box.encryptJson(secrets) : null,
    tokensEnc: null,
    tokenVersion: 0,
    tokenExpiresAt: null,
    refreshLockOwner: null,
    refreshLockUntil: null,
    state: {},
    status: def.kind === "oauth2" ? "needs_authorization" : "ready",
    statusMessage: null,
    createdBy: actor.label,
    createdAt: at,
    updatedAt: at,
  };
  await deps.store.tx(async (s) => {
    await s.connections.insert(row);
    await recordAudit(s, {
      organizationId: ws.organizationId,
      workspaceId,
      actor: actor.label,
      action: "connection.create",
      target: row.id,
      data: { integration: row.integration },
    });
  });
  return toConnectionView(deps, row);
}

/** Updates name and/or settings; a secret field that is omitted keeps its stored value. */
export async function updateConnection(
  deps: AppDeps,
  actor: Actor,
  workspaceId: string,
  connectionId: string,
  input: { name?: string; config?: Record<string, unknown> },
) {
  const ws = await requireWorkspace(deps.store, actor, workspaceId, "connection.write");
  const row = await getConnectionRow(deps, workspaceId, connectionId);
  const { def } = integrationOrThrow(row.integration);
  const patch: Partial<ConnectionRow> = { updatedAt: deps.now().toISOString() };
  if (input.name !== undefined) patch.name = input.name.trim();
  if (input.config) {
    const current = row.secretsEnc ? deps.box.decryptJson<Record<string, unknown>>(row.secretsEnc) : {};
    const incoming = splitSecrets(def.schema, input.config);
    const settings = parseSettings(def.schema, mergeSecrets(incoming.plain, mergeSecrets(current, incoming.secrets)), input.config);
    await assertBaseUrlsAllowed(settings);
    const { plain, secrets } = splitSecrets(def.schema, settings);
    patch.config = plain;
    patch.secretsEnc = Object.keys(secrets).length ? deps.box.encryptJson(secrets) : null;
    if (def.kind === "form") Object.assign(patch, { status: "ready", statusMessage: null });
    // New settings have not been tested: the last successful test was of the old ones. The same
    // settings saved again (the form's Save after "Save and test") keep the test's outcome.
    if (!isDeepStrictEqual(plain, row.config) || !isDeepStrictEqual(secrets, current)) patch.state = withoutVerifiedAt(row.state);
  }
  await deps.store.tx(async (s) => {
    await s.connections.update(connectionId, patch);
    await recordAudit(s, { organizationId: ws.organizationId, workspaceId, actor: actor.label, action: "connection.update", target: connectionId });
  });
  return toConnectionView(deps, await getConnectionRow(deps, workspaceId, connectionId));
}

export async function deleteConnection(deps: AppDeps, actor: Actor, workspaceId: string, connectionId: string): Promise<void> {
  const ws = await requireWorkspace(deps.store, actor, workspaceId, "connection.write");
  await getConnectionRow(deps, workspaceId, connectionId);
  const users = await deps.store.automations.usingConnection(workspaceId, connectionId);
  if (users.length) throw new AppError("conflict", `The connection is used by ${users.map((u) => `"${u.name}"`).join(", ")}; change those automations first.`);
  await deps.store.tx(async (s) => {
    await s.connections.delete(connectionId);
    await recordAudit(s, { organizationId: ws.organizationId, workspaceId, actor: actor.label, action: "connection.delete", target: connectionId });
  });
}

export async function listConnections(deps: AppDeps, actor: Actor, workspaceId: string, q: { integration?: string } = {}) {
  await requireWorkspace(deps.store, actor, workspaceId, "connection.read");
  const rows = await deps.store.connections.list(workspaceId);
  return rows.filter((r) => !q.integration || r.integration === q.integration).map((r) => toConnectionView(deps, r));
}

export async function getConnectionOrThrow(deps: AppDeps, actor: Actor, workspaceId: string, connectionId: string) {
  await requireWorkspace(deps.store, actor, workspaceId, "connection.read");
  return toConnectionView(deps, await getConnectionRow(deps, workspaceId, connectionId));
}

/** One cheap live call through the integration's verify(); the outcome is stored as the status. */
export async function verifyConnection(deps: AppDeps, actor: Actor, workspaceId: string, connectionId: string) {
  await requireWorkspace(deps.store, actor, workspaceId, "connection.use");
  const row = await getConnectionRow(deps, workspaceId, connectionId);
  const { def } = integrationOrThrow(row.integration);
  let ok = true;
  let message = "Connected";
  try {
    const handle = await loadConnectionHandle(deps, connectionId);
    const r = await def.verify?.({ connection: handle as never, http: createHttpClient() });
    if (r && r.message) message = r.message;
  } catch (e) {
    ok = false;
    message = (e as Error).message;
  }
  const status: ConnectionRow["status"] = ok ? "ready" : row.status === "needs_authorization" || row.status === "needs_reconnect" ? row.status : "error";
  const now = deps.now().toISOString();
  const state = ok ? { ...(row.state ?? {}), verifiedAt: now } : withoutVerifiedAt(row.state);
  await deps.store.connections.update(connectionId, { status, statusMessage: ok ? null : message, state, updatedAt: now });
  return { ok, message, connection: toConnectionView(deps, await getConnectionRow(deps, workspaceId, connectionId)) };
}

/** Options for a dynamic dropdown (`resource` UI meta), paginated and searchable. */
export async function listResources(
  deps: AppDeps,
  actor: Actor,
  workspaceId: string,
  q: { connectionId: string; resourceType: string; config?: Record<string, unknown>; search?: string; cursor?: string },
) {
  await requireWorkspace(deps.store, actor, workspaceId, "connection.use");
  const row = await getConnectionRow(deps, workspaceId, q.connectionId);
  const { integration } = integrationOrThrow(row.integration);
  const loader = integration.resources?.[q.resourceType];
  if (!loader) throw new AppError("not_found", `${integration.title} has no resource list "${q.resourceType}"`);
  const connection = await loadConnectionHandle(deps, q.connectionId);
  try {
    const out = await loader({ connection, http: createHttpClient(), config: q.config ?? {}, search: q.search, cursor: q.cursor });
    return { options: out.options, nextCursor: out.nextCursor ?? null };
  } catch (e) {
    throw new AppError("upstream_error", `Could not load ${q.resourceType}: ${(e as Error).message}`);
  }
}

export { connectionSettings };
