/**
 * Atlassian OAuth 2.0 (3LO) of the fake: `/authorize` (auto-consent or an Accept page), `/oauth/token`
 * (authorization_code and rotating refresh_token grants), `/oauth/token/accessible-resources` and `/me`.
 */
import { json, q, type FakeModule, type FakeRequest, type FakeResponse } from "./route-kit";
import type { FakeAtlassianState } from "./state";

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (status: number, title: string, body: string): FakeResponse => ({
  status,
  headers: { "content-type": "text/html; charset=utf-8" },
  text: `<!doctype html><html><head><title>${esc(title)}</title></head><body><h1>${esc(title)}</h1>${body}</body></html>`,
});
const redirect = (url: string): FakeResponse => ({ status: 302, headers: { location: url } });

function withParams(base: string, params: Record<string, string>) {
  const u = new URL(base);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

/** Checks the authorize request; returns an error page or the validated parameters. */
function checkAuthorize(state: FakeAtlassianState, p: Record<string, string | undefined>) {
  const app = state.apps.get(p.client_id ?? "");
  if (!app) return { error: page(400, "Something went wrong", "<p>Invalid client_id: the app does not exist.</p>") };
  if (!p.redirect_uri || !/^https?:\/\//.test(p.redirect_uri) || (app.callbackUrls.length && !app.callbackUrls.includes(p.redirect_uri))) {
    return { error: page(400, "Something went wrong", "<p>redirect_uri does not match the app's callback URL.</p>") };
  }
  if (p.audience !== "api.atlassian.com" || p.response_type !== "code" || !p.scope) {
    return {
      error: redirect(
        withParams(p.redirect_uri, {
          error: "invalid_request",
          error_description: "audience, response_type=code and scope are required",
          ...(p.state ? { state: p.state } : {}),
        }),
      ),
    };
  }
  return { app, redirectUri: p.redirect_uri, scopes: p.scope.split(/\s+/).filter(Boolean), state: p.state ?? "" };
}

export function oauthModule(state: FakeAtlassianState): FakeModule {
  const consent = (req: FakeRequest, params: Record<string, string | undefined>, accept: boolean): FakeResponse => {
    const ok = checkAuthorize(state, params);
    if ("error" in ok) return ok.error!;
    if (!accept)
      return redirect(withParams(ok.redirectUri, { error: "access_denied", error_description: "User did not authorize the request", state: ok.state }));
    const code = state.issueCode({ clientId: ok.app.clientId, redirectUri: ok.redirectUri, accountId: state.consentAccountId, scopes: ok.scopes });
    return redirect(withParams(ok.redirectUri, { code, state: ok.state }));
  };
  return {
    name: "oauth",
    routes: [
      {
        method: "GET",
        path: "/authorize",
        auth: "none",
        handler: (req) => {
          const params = Object.fromEntries(["audience", "client_id", "scope", "redirect_uri", "state", "response_type", "prompt"].map((k) => [k, q(req, k)]));
          const ok = checkAuthorize(state, params);
          if ("error" in ok) return ok.error!;
          if (state.consentMode === "auto") return consent(req, params, true);
          const user = state.users.get(state.consentAccountId);
          const hidden = Object.entries(params)
            .map(([k, v]) => `<input type="hidden" name="${k}" value="${esc(v ?? "")}">`)
            .join("");
          return page(
            200,
            `${ok.app.name} is requesting access to your Atlassian account`,
            `<p>Signed in as ${esc(user?.displayName ?? "?")}.</p><p>Scopes: ${ok.scopes.map(esc).join(", ")}</p>` +
              `<form method="post" action="/authorize/consent">${hidden}<button name="decision" value="accept">Accept</button> <button name="decision" value="deny">Cancel</button></form>`,
          );
        },
      },
      {
        method: "POST",
        path: "/authorize/consent",
        auth: "none",
        handler: (req) => {
          const b = (req.body ?? {}) as Record<string, string>;
          return consent(req, b, b.decision === "accept");
        },
      },
      {
        method: "POST",
        path: "/oauth/token",
        auth: "none",
        handler: (req) => {
          const b = (req.body ?? {}) as Record<string, string>;
          const app = state.apps.get(b.client_id ?? "");
          if (!app || app.clientSecret !== b.client_secret) return json(401, { error: "access_denied", error_description: "Unauthorized" });
          if (b.grant_type === "authorization_code") {
            const code = state.takeCode(b.code ?? "");
            if (!code || code.clientId !== app.clientId) return json(403, { error: "invalid_grant", error_description: "Invalid authorization code" });
            if (code.redirectUri !== b.redirect_uri) return json(403, { error: "invalid_grant", error_description: "redirect_uri does not match" });
            return json(200, state.issueTokens(app.clientId, code.accountId, code.scopes));
          }
          if (b.grant_type === "refresh_token") {
            const rec = state.refreshTokens.get(b.refresh_token ?? "");
            if (!rec || !rec.valid || rec.clientId !== app.clientId) {
              return json(403, { error: "invalid_grant", error_description: "Unknown or invalid refresh token." });
            }
            rec.valid = false; // rotation: the used token is disabled
            return json(200, state.issueTokens(app.clientId, rec.accountId, rec.scopes));
          }
          return json(400, { error: "unsupported_grant_type", error_description: `Unsupported grant type: ${b.grant_type}` });
        },
      },
      {
        method: "GET",
        path: "/oauth/token/accessible-resources",
        handler: (req) =>
          json(
            200,
            state.grantedSites(req.clientId!, req.accountId!).map((s) => ({
              id: s.cloudId,
              name: s.name,
              url: s.url,
              scopes: req.scopes ?? [],
              avatarUrl: "https://site-admin-avatar-cdn.prod.public.atl-paas.net/avatars/240/flag.png",
            })),
          ),
      },
      {
        method: "GET",
        path: "/me",
        handler: (req) => {
          const u = state.users.get(req.accountId!)!;
          return json(200, { account_type: "atlassian", account_id: u.accountId, email: u.emailAddress, name: u.displayName, account_status: "active" });
        },
      },
    ],
  };
}
