/** Builds the ConnectionHandle a component, trigger or resource loader receives (secrets decrypted). */
import type { ConnectionRow } from "@/db/types";
import type { ConnectionHandle, OAuthProvider } from "@/integrations/core/define";
import { ConnectionAuthError, NonRetryableError } from "@/integrations/core/errors";
import { findIntegration } from "@/integrations/registry";
import type { AppDeps } from "../../deps";
import { createOAuthTokenSource, type TokenSourceOptions } from "./oauth-token-source";
import { mergeSecrets } from "./secrets";

export type { ConnectionRow };

export function connectionSettings(deps: AppDeps, row: ConnectionRow): Record<string, unknown> {
  const secrets = row.secretsEnc ? deps.box.decryptJson<Record<string, unknown>>(row.secretsEnc) : {};
  return mergeSecrets(row.config, secrets);
}

/**
 * `workspaceId`: the workspace of the run or delivery asking. A connection of another workspace is
 * answered as missing (its name and status are not told): a node of a unit that needs no connection
 * can carry any id, which the save does not check.
 */
export async function loadConnectionHandle(
  deps: AppDeps,
  connectionId: string,
  o: TokenSourceOptions & { workspaceId?: string } = {},
): Promise<ConnectionHandle> {
  const row = await deps.store.connections.getById(connectionId);
  if (!row || (o.workspaceId !== undefined && row.workspaceId !== o.workspaceId))
    throw new NonRetryableError(`Connection ${connectionId} does not exist${o.workspaceId !== undefined ? " in this workspace" : ""}`);
  const integration = findIntegration(row.integration);
  if (!integration?.connection) throw new NonRetryableError(`Integration ${row.integration} has no connection settings`);
  if (row.status === "needs_reconnect")
    throw new ConnectionAuthError(`Connection "${row.name}" needs to be reconnected: ${row.statusMessage ?? "authorisation was refused"}`);
  const merged = connectionSettings(deps, row);
  const parsed = integration.connection.schema.safeParse(merged);
  const config = (parsed.success ? parsed.data : merged) as Record<string, unknown>;
  const handle: ConnectionHandle = {
    id: row.id,
    integration: row.integration,
    config,
    state: row.state ?? {},
    async saveState(patch) {
      await deps.store.connections.mergeState(connectionId, patch, new Date().toISOString());
      Object.assign(handle.state, patch);
    },
  };
  if (integration.connection.kind === "oauth2" && integration.connection.oauth) {
    handle.oauth = createOAuthTokenSource(deps, row.id, config, integration.connection.oauth as OAuthProvider<unknown>, o);
  }
  return handle;
}
