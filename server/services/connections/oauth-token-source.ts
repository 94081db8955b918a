/**
 * OAuth access tokens for a connection, shared safely by every process on the database:
 * - proactive refresh when the token expires within a minute, reactive refresh after a 401;
 * - one refresh at a time per connection ACROSS processes: a lock row (owner + lease) on the
 *   connection, and a compare-and-set on `tokenVersion` so a refresh that lost the race is dropped;
 * - rotating refresh tokens: the new pair is committed before the new access token is handed out;
 * - a refused refresh marks the connection `needs_reconnect` and raises ConnectionAuthError.
 */
import type { TokenState } from "@/db/types";
import type { AppDeps } from "../../deps";
import type { OAuthProvider, OAuthTokens, OAuthTokenSource } from "@/integrations/core/define";
import { ConnectionAuthError, IntegrationHttpError, NonRetryableError, RetryableError } from "@/integrations/core/errors";
import { createHttpClient, type HttpClient } from "@/integrations/core/http";
import { newId } from "../../ids";

export const REFRESH_SKEW_MS = 60_000;
const LOCK_LEASE_MS = 15_000;

export interface TokenSourceOptions {
  http?: HttpClient;
  lockLeaseMs?: number;
  owner?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createOAuthTokenSource(
  deps: AppDeps,
  connectionId: string,
  conn: unknown,
  provider: OAuthProvider<unknown>,
  o: TokenSourceOptions = {},
): OAuthTokenSource {
  const store = deps.store.connections;
  const owner = o.owner ?? newId("lock", 10);
  const http = o.http ?? createHttpClient();
  const lease = o.lockLeaseMs ?? LOCK_LEASE_MS;
  const read = () => store.tokenState(connectionId);
  const tokensOf = (row: TokenState | undefined): OAuthTokens => {
    if (!row?.tokensEnc) throw new ConnectionAuthError("This connection is not authorised yet; connect it in Connections.");
    return deps.box.decryptJson<OAuthTokens>(row.tokensEnc);
  };

  async function refreshFrom(seenVersion: number): Promise<boolean> {
    const deadline = Date.now() + lease * 2;
    for (;;) {
      const now = Date.now();
      if (await store.acquireRefreshLock(connectionId, owner, now, now + lease)) break;
      if (((await read())?.tokenVersion ?? seenVersion) !== seenVersion) return true; // someone else refreshed
      if (Date.now() > deadline) throw new RetryableError("Timed out waiting for another process to refresh the OAuth token");
      await sleep(50);
    }
    try {
      const row = await read();
      if (!row) throw new ConnectionAuthError("Connection was deleted");
      if (row.tokenVersion !== seenVersion) return true;
      const current = tokensOf(row);
      if (!current.refreshToken) throw new ConnectionAuthError("The access token expired and there is no refresh token; reconnect.");
      let fresh: OAuthTokens;
      try {
        fresh = await provider.refresh(conn, { refreshToken: current.refreshToken, http });
      } catch (e) {
        if (e instanceof IntegrationHttpError && e.retryable) throw new RetryableError(`OAuth refresh failed: ${e.message}`, e.retryAfterMs);
        if (e instanceof RetryableError) throw e;
        if (e instanceof IntegrationHttpError || e instanceof NonRetryableError) {
          const at = new Date().toISOString();
          await store.update(connectionId, { status: "needs_reconnect", statusMessage: `Token refresh refused: ${e.message}`, updatedAt: at });
          return false;
        }
        throw e;
      }
      const next: OAuthTokens = { ...current, ...fresh, refreshToken: fresh.refreshToken ?? current.refreshToken };
      // Store the rotated pair first (compare-and-set on the version we read), only then use it.
      const saved = await store.saveRefreshedTokens(connectionId, owner, seenVersion, {
        tokensEnc: deps.box.encryptJson(next),
        tokenExpiresAt: next.expiresAt ?? null,
        updatedAt: new Date().toISOString(),
      });
      if (!saved) throw new RetryableError("OAuth token changed during refresh; retry");
      return true;
    } finally {
      await store.releaseRefreshLock(connectionId, owner);
    }
  }

  return {
    async getAccessToken() {
      const row = await read();
      if (row?.status === "needs_reconnect") throw new ConnectionAuthError("This connection needs to be reconnected (its refresh was refused).");
      const tokens = tokensOf(row);
      if (!tokens.expiresAt || tokens.expiresAt - Date.now() > REFRESH_SKEW_MS) return tokens.accessToken;
      if (!(await refreshFrom(row!.tokenVersion))) throw new ConnectionAuthError("The OAuth refresh was refused; reconnect this connection.");
      return tokensOf(await read()).accessToken;
    },
    async refresh() {
      const row = await read();
      if (!row) return false;
      return refreshFrom(row.tokenVersion);
    },
  };
}
