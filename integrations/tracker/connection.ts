/**
 * Tracker connection: the user's own Atlassian OAuth 2.0 (3LO) app (UPSTREAM §C).
 * - `authorizeUrl` asks for the Jira / JSM scopes, and the JSM Operations scopes only with `enableOpsFeatures`;
 * - `exchangeCode` / `refresh` call the token endpoint (refresh tokens rotate: the framework stores the new one);
 * - `afterConnect` lists the accessible sites: one → its cloud id is stored, several → the user picks one.
 * Base URLs are settings so tests and offline demos point at the fake Atlassian.
 */
import { z } from "zod";
import type { ConnectionDefinition, OAuthProvider, OAuthTokens } from "../core/define";
import { ConnectionAuthError, IntegrationHttpError } from "../core/errors";
import type { HttpClient } from "../core/http";
import { ui } from "../core/ui-meta";
import { jiraClient } from "./jira-client";

export const DEFAULT_AUTH_BASE = "https://auth.atlassian.com";
export const DEFAULT_API_BASE = "https://api.atlassian.com";

export const trackerConnectionSchema = z.object({
  clientId: z
    .string()
    .trim()
    .min(1)
    .meta(ui({ title: "Client ID", description: "From your OAuth 2.0 (3LO) app in the Atlassian developer console.", order: 1 })),
  clientSecret: z
    .string()
    .trim()
    .min(1)
    .meta(ui({ title: "Client Secret", sensitive: true, order: 2 })),
  enableOpsFeatures: z
    .boolean()
    .default(false)
    .meta(ui({ title: "Enable ops features", description: "Requests the JSM Operations scopes (alerts, heartbeats). Reconnect after changing it.", order: 3 })),
  authBaseUrl: z
    .url()
    .default(DEFAULT_AUTH_BASE)
    .meta(ui({ title: "Auth base URL", description: "Atlassian's authorization server; change only for a test server.", order: 10 })),
  apiBaseUrl: z
    .url()
    .default(DEFAULT_API_BASE)
    .meta(ui({ title: "API base URL", description: "Atlassian's API gateway; change only for a test server.", order: 11 })),
});

export type TrackerConnection = z.output<typeof trackerConnectionSchema>;

/** Classic scopes for Jira and JSM (UPSTREAM §C.5), plus refresh tokens and identity. */
export const BASE_SCOPES = [
  "read:jira-work",
  "write:jira-work",
  "read:jira-user",
  "manage:jira-webhook",
  "manage:jira-configuration",
  "read:servicedesk-request",
  "write:servicedesk-request",
  "read:me",
  "offline_access",
] as const;

/** JSM Operations scopes (granular only), requested only when ops features are on. */
export const OPS_SCOPES = [
  "read:ops-alert:jira-service-management",
  "write:ops-alert:jira-service-management",
  "delete:ops-alert:jira-service-management",
  "read:ops-config:jira-service-management",
  "write:ops-config:jira-service-management",
  "delete:ops-config:jira-service-management",
] as const;

export function scopesFor(conn: Pick<TrackerConnection, "enableOpsFeatures">): string[] {
  return [...BASE_SCOPES, ...(conn.enableOpsFeatures ? OPS_SCOPES : [])];
}

const trim = (u: string | undefined, d: string) => (u ?? d).replace(/\/+$/, "");
export const authBaseOf = (c: Partial<TrackerConnection>) => trim(c.authBaseUrl, DEFAULT_AUTH_BASE);
export const apiBaseOf = (c: Partial<TrackerConnection>) => trim(c.apiBaseUrl, DEFAULT_API_BASE);

interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
  token_type?: string;
}

async function tokenRequest(conn: TrackerConnection, http: HttpClient, grant: Record<string, string>): Promise<OAuthTokens> {
  const res = await http.post<TokenResponse>(`${authBaseOf(conn)}/oauth/token`, { ...grant, client_id: conn.clientId, client_secret: conn.clientSecret });
  const b = res.body;
  if (!b || typeof b.access_token !== "string") throw new ConnectionAuthError("Atlassian's token endpoint answered without an access token");
  return {
    accessToken: b.access_token,
    refreshToken: b.refresh_token,
    expiresAt: typeof b.expires_in === "number" ? Date.now() + b.expires_in * 1000 : undefined,
    scope: b.scope,
    tokenType: b.token_type ?? "Bearer",
  };
}

export interface AccessibleResource {
  id: string;
  name: string;
  url: string;
  scopes?: string[];
}

export const siteState = (r: AccessibleResource) => ({ cloudId: r.id, siteName: r.name, siteUrl: r.url });

export const trackerOAuth: OAuthProvider<TrackerConnection> = {
  authorizeUrl(conn, { state, redirectUri, codeChallenge }) {
    const u = new URL(`${authBaseOf(conn)}/authorize`);
    u.searchParams.set("audience", "api.atlassian.com");
    u.searchParams.set("client_id", conn.clientId);
    u.searchParams.set("scope", scopesFor(conn).join(" "));
    u.searchParams.set("redirect_uri", redirectUri);
    u.searchParams.set("state", state);
    u.searchParams.set("response_type", "code");
    u.searchParams.set("prompt", "consent");
    if (codeChallenge) {
      u.searchParams.set("code_challenge", codeChallenge);
      u.searchParams.set("code_challenge_method", "S256");
    }
    // URLSearchParams encodes spaces as "+"; Atlassian documents %20 for the scope list.
    return u.toString().replace(/\+/g, "%20");
  },

  exchangeCode(conn, { code, redirectUri, codeVerifier, http }) {
    return tokenRequest(conn, http, {
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      ...(codeVerifier ? { code_verifier: codeVerifier } : {}),
    }).catch((e) => {
      // A wrong Client Secret is refused here with 401, after the consent page took the Client ID (a used or expired code: 403 invalid_grant).
      if (e instanceof IntegrationHttpError && e.status === 401)
        throw new ConnectionAuthError(
          `Atlassian refused the app's Client ID or Client Secret (${e.message}): copy both again from the app's Settings in the developer console, save, and connect again.`,
        );
      throw e;
    });
  },

  /** Refused refreshes (403 invalid_grant) surface as non-retryable errors: the framework marks "needs reconnect". */
  refresh(conn, { refreshToken, http }) {
    return tokenRequest(conn, http, { grant_type: "refresh_token", refresh_token: refreshToken });
  },

  async afterConnect(conn, { accessToken, http }) {
    const res = await http.get<AccessibleResource[]>(`${apiBaseOf(conn)}/oauth/token/accessible-resources`, undefined, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    const sites = Array.isArray(res.body) ? res.body : [];
    if (!sites.length)
      throw new ConnectionAuthError("The Atlassian account granted this app no site; connect again and choose a Jira site on the consent screen.");
    if (sites.length === 1) return { state: siteState(sites[0]!) };
    return {
      choices: [...sites].sort((a, b) => a.name.localeCompare(b.name)).map((s) => ({ value: s.id, label: `${s.name} (${s.url})`, state: siteState(s) })),
    };
  },
};

export const trackerConnection: ConnectionDefinition<typeof trackerConnectionSchema> = {
  kind: "oauth2",
  schema: trackerConnectionSchema,
  oauth: trackerOAuth,
  async verify({ connection, http }) {
    const me = await jiraClient(connection, http).myself();
    return { message: `Connected to ${String(connection.state.siteName ?? connection.state.siteUrl ?? "the site")} as ${me.displayName}` };
  },
};
