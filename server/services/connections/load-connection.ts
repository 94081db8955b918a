/** Builds the ConnectionHandle a component, trigger or resource loader receives (secrets decrypted). */
import { eq } from "drizzle-orm";
import { connections } from "@/db/schema";
import type { ConnectionHandle, OAuthProvider } from "@/integrations/core/define";
import { ConnectionAuthError, NonRetryableError } from "@/integrations/core/errors";
import { findIntegration } from "@/integrations/registry";
import type { AppDeps } from "../../deps";
import { createOAuthTokenSource, type TokenSourceOptions } from "./oauth-token-source";
import { mergeSecrets } from "./secrets";

export type ConnectionRow = typeof connections.$inferSelect;

export function connectionSettings(deps: AppDeps, row: ConnectionRow): Record<string, unknown> {
  const secrets = row.secretsEnc ? deps.box.decryptJson<Record<string, unknown>>(row.secretsEnc) : {};
  return mergeSecrets(row.config, secrets);
}

export async function loadConnectionHandle(deps: AppDeps, connectionId: string, o: TokenSourceOptions = {}): Promise<ConnectionHandle> {
  const row = deps.db.select().from(connections).where(eq(connections.id, connectionId)).get();
  if (!row) throw new NonRetryableError(`Connection ${connectionId} does not exist`);
  const integration = findIntegration(row.integration);
  if (!integration?.connection) throw new NonRetryableError(`Integration ${row.integration} has no connection settings`);
  if (row.status === "needs_reconnect") throw new ConnectionAuthError(`Connection "${row.name}" needs to be reconnected: ${row.statusMessage ?? "authorisation was refused"}`);
  const merged = connectionSettings(deps, row);
  const parsed = integration.connection.schema.safeParse(merged);
  const config = (parsed.success ? parsed.data : merged) as Record<string, unknown>;
  const handle: ConnectionHandle = {
    id: row.id,
    integration: row.integration,
    config,
    state: row.state ?? {},
    async saveState(patch) {
      const cur = deps.db.select({ state: connections.state }).from(connections).where(eq(connections.id, connectionId)).get();
      deps.db.update(connections).set({ state: { ...(cur?.state ?? {}), ...patch }, updatedAt: new Date().toISOString() }).where(eq(connections.id, connectionId)).run();
      Object.assign(handle.state, patch);
    },
  };
  if (integration.connection.kind === "oauth2" && integration.connection.oauth) {
    handle.oauth = createOAuthTokenSource(deps, row.id, config, integration.connection.oauth as OAuthProvider<unknown>, o);
  }
  return handle;
}
