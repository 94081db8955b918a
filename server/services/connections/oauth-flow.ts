/**
 * OAuth 2.0 authorization-code flow for `oauth2` connections (Atlassian 3LO for the tracker):
 * begin (state bound to the user, PKCE S256 verifier, stored in oauth_states for 10 minutes),
 * complete (state checked against the user and expiry, code exchanged, tokens stored encrypted,
 * `afterConnect` discovers sites; several sites → `needs_site` until `chooseSite`).
 */
import { createHash, randomBytes } from "node:crypto";
import type { OAuthProvider } from "@/integrations/core/define";
import { createHttpClient } from "@/integrations/core/http";
import { findIntegration } from "@/integrations/registry";
import type { AppDeps } from "../../deps";
import type { Actor } from "../../auth/permissions";
import { AppError } from "../../errors";
import { safeReturnPath } from "../../http/return-path";
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
  await requireWorkspace(deps.store, actor, workspaceId, "connection.write");
  if (actor.kind !== "user") throw new AppError("forbidden", "Connecting an OAuth account needs a signed-in user");
  const row = await getConnectionRow(deps, workspaceId, connectionId);
  const { def, provider } = providerOf(row.integration);
  const settings = def.schema.parse(connectionSettings(deps, row));
  const state = randomBytes(24).toString("base64url");
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const now = deps.now().getTime();
  await deps.store.connections.insertOAuthState({
    state,
    connectionId,
    userId: actor.userId,
    codeVerifier: verifier,
    redirectUri: args.redirectUri,
    returnTo: args.returnTo ? safeReturnPath(args.returnTo, "") || null : null,
    createdAt: now,
    expiresAt: now + STATE_TTL_MS,
  });
  return { authorizeUrl: provider.authorizeUrl(settings, { state, redirectUri: args.redirectUri, codeChallenge: challenge }), state };
}

/**
 * A failure after the callback's state was matched: carries where the flow started, so the browser goes back
 * there with the message (not to the home page, where it would be lost).
 */
export class OAuthCallbackError extends Error {
  constructor(
    message: string,
    readonly workspaceId: string,
    readonly returnTo: string | null,
  ) {
    super(message);
    this.name = "OAuthCallbackError";
  }
}

/**
 * The provider's redirect back: `code`, or `providerError` when the user cancelled on the consent page or the
 * provider refused the request. The state is consumed either way.
 */
export async function completeOAuth(deps: AppDeps, args: { state: string; code?: string | null; providerError?: string; userId: string }) {
  // Consumed as it is read (usable once); a request of another user is left alone.
  const st = await deps.store.connections.takeOAuthState(args.state, args.userId);
  if (!st) throw new AppError("bad_request", "This authorisation request is unknown or belongs to another user; start again from Connections.");
  const row = await deps.store.connections.getById(st.connectionId);
  if (!row) throw new AppError("not_found", "The connection was deleted meanwhile.");
  const fail = (message: string) => new OAuthCallbackError(message, row.workspaceId, st.returnTo ?? null);
  if (st.expiresAt < deps.now().getTime()) throw fail("This authorisation request expired; press Connect again.");
  if (args.providerError) throw fail(`The provider did not authorise the connection (${args.providerError}).`);
  if (!args.code) throw fail("The provider sent no authorisation code; press Connect again.");
  const { def, provider } = providerOf(row.integration);
  const settings = def.schema.parse(connectionSettings(deps, row));
  const http = createHttpClient();
  let tokens: Awaited<ReturnType<typeof provider.exchangeCode>>;
  let discovered: Awaited<ReturnType<NonNullable<typeof provider.afterConnect>>> = {};
  try {
    tokens = await provider.exchangeCode(settings, { code: args.code, redirectUri: st.redirectUri, codeVerifier: st.codeVerifier ?? undefined, http });
    if (provider.afterConnect) discovered = await provider.afterConnect(settings, { accessToken: tokens.accessToken, http });
  } catch (e) {
    throw fail((e as Error).message);
  }
  const choices = discovered.choices ?? [];
  const needsSiteChoice = choices.length > 1;
  const state = {
    ...(row.state ?? {}),
    ...(discovered.state ?? {}),
    ...(choices.length === 1 ? choices[0]!.state : {}),
    ...(needsSiteChoice ? { choices } : { choices: undefined }),
  };
  await deps.store.connections.setAuthorized(row.id, {
    tokensEnc: deps.box.encryptJson(tokens),
    tokenExpiresAt: tokens.expiresAt ?? null,
    state,
    status: needsSiteChoice ? "needs_site" : "ready",
    statusMessage: null,
    updatedAt: deps.now().toISOString(),
  });
  const fresh = (await deps.store.connections.getById(row.id))!;
  return { connection: toConnectionView(deps, fresh), needsSiteChoice, returnTo: st.returnTo ?? null, workspaceId: row.workspaceId };
}

export async function chooseSite(deps: AppDeps, actor: Actor, workspaceId: string, connectionId: string, value: string) {
  await requireWorkspace(deps.store, actor, workspaceId, "connection.write");
  const row = await getConnectionRow(deps, workspaceId, connectionId);
  const choices = ((row.state ?? {}) as { choices?: Array<{ value: string; state: Record<string, unknown> }> }).choices ?? [];
  const pick = choices.find((c) => c.value === value);
  if (!pick) throw new AppError("validation_failed", `Site ${value} is not one this account can access`, [{ path: "value", message: "Unknown site" }]);
  const { choices: _drop, ...rest } = row.state as Record<string, unknown>;
  await deps.store.connections.update(connectionId, { state: { ...rest, ...pick.state }, status: "ready", updatedAt: deps.now().toISOString() }, workspaceId);
  return toConnectionView(deps, await getConnectionRow(deps, workspaceId, connectionId));
}
