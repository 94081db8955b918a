/** A test-only oauth2 integration whose provider talks to a loopback token server (oauth-server.ts). */
import { z } from "zod";
import { defineIntegration, type AnyIntegration } from "@/integrations/core/define";
import { registerTestIntegration } from "@/integrations/registry";
import { ui } from "@/integrations/core/ui-meta";

const schema = z.object({
  tokenUrl: z.string(),
  clientId: z.string(),
  clientSecret: z.string().meta(ui({ sensitive: true })),
});

export const stubOAuth = defineIntegration({
  key: "stuboauth",
  title: "Stub OAuth",
  description: "test",
  icon: "key",
  components: [],
  triggers: [],
  connection: {
    kind: "oauth2",
    schema,
    oauth: {
      authorizeUrl: (c, a) =>
        `${c.tokenUrl.replace(/\/token$/, "/authorize")}?client_id=${c.clientId}&state=${a.state}&redirect_uri=${encodeURIComponent(a.redirectUri)}&code_challenge=${a.codeChallenge}`,
      async exchangeCode(c, a) {
        const r = await a.http.post<{ access_token: string; refresh_token: string; expires_in: number }>(c.tokenUrl, {
          grant_type: "authorization_code",
          code: a.code,
          client_id: c.clientId,
          client_secret: c.clientSecret,
          code_verifier: a.codeVerifier,
        });
        return { accessToken: r.body.access_token, refreshToken: r.body.refresh_token, expiresAt: Date.now() + r.body.expires_in * 1000 };
      },
      async refresh(c, a) {
        const r = await a.http.post<{ access_token: string; refresh_token: string; expires_in: number }>(c.tokenUrl, {
          grant_type: "refresh_token",
          refresh_token: a.refreshToken,
          client_id: c.clientId,
          client_secret: c.clientSecret,
        });
        return { accessToken: r.body.access_token, refreshToken: r.body.refresh_token, expiresAt: Date.now() + r.body.expires_in * 1000 };
      },
    },
  },
}) as AnyIntegration;

export function registerStubOAuth(): void {
  registerTestIntegration(stubOAuth);
}
