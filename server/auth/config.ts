/**
 * next-auth (v4, stable) configuration: email + password (Credentials, JWT sessions) and an
 * optional OIDC provider configured by env. Pages: /sign-in, /setup (first visit creates the owner).
 */
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { env } from "../env";
import { getDeps } from "../deps";
import { loadOrCreateAuthSecret } from "./secret";
import { signInWithPassword } from "../services/users/sign-in";
import { clientAddressOf } from "../http/client-address";
import { createLogger } from "../logger";

// next-auth 4 reads NEXTAUTH_URL itself for every URL it builds (callback, sign-in, redirects);
// without it, it falls back to http://localhost:3000 whatever the public URL is.
process.env.NEXTAUTH_URL = `${env.publicUrl}/api/auth`;

const authLog = createLogger({ service: "conveyor", component: "auth" }, env.LOG_LEVEL);
/** next-auth's own messages as JSON lines; metadata is reduced to names and messages (no tokens, no request bodies). */
function describe(meta: unknown): Record<string, unknown> {
  if (meta instanceof Error) return { error: meta.name, reason: meta.message };
  if (meta && typeof meta === "object") {
    const m = meta as { error?: unknown; message?: unknown; providerId?: unknown };
    const err = m.error instanceof Error ? m.error : undefined;
    return {
      ...(err ? { error: err.name, reason: err.message } : {}),
      ...(typeof m.message === "string" ? { reason: m.message } : {}),
      ...(typeof m.providerId === "string" ? { provider: m.providerId } : {}),
    };
  }
  return {};
}

function oidcProviders(): NextAuthOptions["providers"] {
  if (!env.OIDC_ISSUER || !env.OIDC_CLIENT_ID || !env.OIDC_CLIENT_SECRET) return [];
  return [
    {
      id: "oidc",
      name: env.OIDC_NAME,
      type: "oauth",
      wellKnown: `${env.OIDC_ISSUER.replace(/\/$/, "")}/.well-known/openid-configuration`,
      clientId: env.OIDC_CLIENT_ID,
      clientSecret: env.OIDC_CLIENT_SECRET,
      authorization: { params: { scope: "openid email profile" } },
      idToken: true,
      checks: ["pkce", "state"],
      profile(profile: { sub: string; email?: string; name?: string }) {
        return { id: profile.sub, email: profile.email ?? null, name: profile.name ?? profile.email ?? profile.sub };
      },
    },
  ];
}

export const authOptions: NextAuthOptions = {
  secret: loadOrCreateAuthSecret(env.dataDir, env.NEXTAUTH_SECRET ?? env.AUTH_SECRET),
  session: { strategy: "jwt", maxAge: 7 * 24 * 3600 },
  // __Secure- cookies with the Secure flag whenever the public URL is https.
  useSecureCookies: env.publicUrl.startsWith("https://"),
  logger: {
    error: (code, meta) => authLog.error(`auth: ${code}`, describe(meta)),
    warn: (code) => authLog.warn(`auth: ${code}`),
    debug: (code) => authLog.debug(`auth: ${code}`),
  },
  pages: { signIn: "/sign-in" },
  providers: [
    CredentialsProvider({
      name: "Email and password",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials, req) {
        if (!credentials?.email || !credentials.password) return null;
        const result = await signInWithPassword(await getDeps(), {
          email: credentials.email,
          password: credentials.password,
          clientAddress: clientAddressOf(req?.headers),
        });
        if (!result.ok) {
          if (result.reason === "rate_limited") throw new Error("Too many failed attempts. Wait 15 minutes and try again.");
          return null;
        }
        return { id: result.user.id, email: result.user.email, name: result.user.name };
      },
    }),
    ...oidcProviders(),
  ],
  callbacks: {
    async signIn({ user, account }) {
      if (account?.provider !== "oidc") return true;
      // OIDC users must already be members (invited); the email links the identity.
      if (!user.email) return false;
      const { store } = await getDeps();
      return Boolean(await store.users.findByEmail(user.email.toLowerCase()));
    },
    async jwt({ token, user, account }) {
      if (user) {
        if (account?.provider === "oidc" && user.email) {
          const { store } = await getDeps();
          const row = await store.users.findByEmail(user.email.toLowerCase());
          token.uid = row?.id;
        } else {
          token.uid = user.id;
        }
      }
      return token;
    },
    async session({ session, token }) {
      if (session.user) (session.user as { id?: string }).id = token.uid as string | undefined;
      return session;
    },
  },
};
