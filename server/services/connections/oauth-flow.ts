/**
 * OAuth 2.0 authorization-code flow for `oauth2` connections (Atlassian 3LO for the tracker):
 * begin (state bound to the user, PKCE S256 verifier, stored in oauth_states for 10 minutes),
 * complete (state checked against the user and expiry, code exchanged, tokens stored encrypted,
 * `afterConnect` discovers sites; several sites → `needs_site` until `chooseSite`).
 */
import { createHash, randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { connections, oauthStates } from "@/db/schema";
import { transaction } from "@/db/client";
import type { OAuthProvider } from "@/integrations/core/define";
import { createHttpClient } from "@/integrations/core/http";
import { findIntegration } from "@/integrations/registry";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError } from "../../errors";
import { requireWorkspace } from "../access";
import { getConnectionRow, toConnectionView } from "./connections";
import { connectionSettings } from "./load-connection";

const STATE_TTL_MS = 10 * 60_000;

/** Where the provider sends the browser back: the callback URL to register in the vendor's developer console. */
export function oauthCallbackUrl(deps: Pick<AppDeps, "publicUrl">, integration: string): string {
  return `${deps.publicUrl}/oauth/${encodeURIComponent(integration)}/callback`;
}

function providerOf(integrationKey: string) {
  const def = findIntegration(integrationKey)?.connection;
  if (def?.kind !== "oauth2" || !def.oauth) throw new AppError("bad_request", `${integrationKey} connections do not use OAuth`);
  return { def, provider: def.oauth as OAuthProvider<unknown> };
}

export async function beginOAuth(deps: AppDeps, actor: Actor, workspaceId: string, connectionId: string, args: { redirectUri: string; returnTo?: string }) {
  await requireWorkspace(deps.db, actor, workspaceId, "connection.write");
  if (actor.kind !== "user") throw new AppError("forbidden", "Connecting an OAuth account needs a signed-in user");
  const row = getConnectionRow(deps, workspaceId, connectionId);
  const { def, provider } = providerOf(row.integration);
  const settings = def.schema.parse(connectionSettings(deps, row));
  const state = randomBytes(24).toString("base64url");
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const now = deps.now().getTime();
  deps.db.insert(oauthStates).values({ state, connectionId, userId: actor.userId, codeVerifier: verifier, redirectUri: args.redirectUri, returnTo: args.returnTo ?? null, createdAt: now, expiresAt: now + STATE_TTL_MS }).run();
  return { authorizeUrl: provider.authorizeUrl(settings, { state, redirectUri: args.redirectUri, codeChallenge: challenge }), state };
}

export async function completeOAuth(deps: AppDeps, args: { state: string; code: string; userId: string }) {
  const st = deps.db.select().from(oauthStates).where(eq(oauthStates.state, args.state)).get();
  if (!st || st.userId !== args.userId) throw new AppError("bad_request", "This authorisation request is unknown or belongs to another user; start again from Connections.");
  deps.db.delete(oauthStates).where(eq(oauthStates.state, args.state)).run();
  if (st.expiresAt < deps.now().getTime()) throw new AppError("bad_request", "This authorisation request expired; start again from Connections.");
  const row = deps.db.select().from(connections).where(eq(connections.id, st.connectionId)).get();
  if (!row) throw new AppError("not_found", "The connection was deleted meanwhile.");
  const { def, provider } = providerOf(row.integration);
  const settings = def.schema.parse(connectionSettings(deps, row));
  const http = createHttpClient();
  const tokens = await provider.exchangeCode(settings, { code: args.code, redirectUri: st.redirectUri, codeVerifier: st.codeVerifier ?? undefined, http });
  const discovered = provider.afterConnect ? await provider.afterConnect(settings, { accessToken: tokens.accessToken, http }) : {};
  const choices = discovered.choices ?? [];
  const needsSiteChoice = choices.length > 1;
  const state = { ...(row.state ?? {}), ...(discovered.state ?? {}), ...(choices.length === 1 ? choices[0]!.state : {}), ...(needsSiteChoice ? { choices } : { choices: undefined }) };
  transaction(deps.db, (tx) => {
    tx.update(connections).set({
      tokensEnc: deps.box.encryptJson(tokens), tokenVersion: row.tokenVersion + 1, tokenExpiresAt: tokens.expiresAt ?? null, state,
      status: needsSiteChoice ? "needs_site" : "ready", statusMessage: null, updatedAt: deps.now().toISOString(),
    }).where(eq(connections.id, row.id)).run();
  });
  const fresh = deps.db.select().from(connections).where(eq(connections.id, row.id)).get()!;
  return { connection: toConnectionView(deps, fresh), needsSiteChoice, returnTo: st.returnTo ?? null, workspaceId: row.workspaceId };
}

export async function chooseSite(deps: AppDeps, actor: Actor, workspaceId: string, connectionId: string, value: string) {
  await requireWorkspace(deps.db, actor, workspaceId, "connection.write");
  const row = getConnectionRow(deps, workspaceId, connectionId);
  const choices = ((row.state ?? {}) as { choices?: Array<{ value: string; state: Record<string, unknown> }> }).choices ?? [];
  const pick = choices.find((c) => c.value === value);
  if (!pick) throw new AppError("validation_failed", `Site ${value} is not one this account can access`, [{ path: "value", message: "Unknown site" }]);
  const { choices: _drop, ...rest } = row.state as Record<string, unknown>;
  deps.db.update(connections).set({ state: { ...rest, ...pick.state }, status: "ready", updatedAt: deps.now().toISOString() })
    .where(and(eq(connections.id, connectionId), eq(connections.workspaceId, workspaceId))).run();
  return toConnectionView(deps, getConnectionRow(deps, workspaceId, connectionId));
}
