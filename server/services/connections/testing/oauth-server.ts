/** Loopback OAuth token endpoint with rotating refresh tokens: a used refresh token is refused (invalid_grant). */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface OAuthServer {
  url: string;
  refreshCalls: number;
  valid: Set<string>;
  issue(): { access: string; refresh: string };
  close(): Promise<void>;
}

export async function startOAuthServer(opts: { delayMs?: number } = {}): Promise<OAuthServer> {
  let n = 0;
  const state: OAuthServer = {
    url: "",
    refreshCalls: 0,
    valid: new Set(),
    issue() {
      n++;
      const refresh = `rt-${n}`;
      state.valid.add(refresh);
      return { access: `at-${n}`, refresh };
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const p = JSON.parse(body || "{}") as Record<string, string>;
      const reply = (status: number, obj: unknown) =>
        setTimeout(() => {
          res.writeHead(status, { "content-type": "application/json" });
          res.end(JSON.stringify(obj));
        }, opts.delayMs ?? 0);
      if (p.grant_type === "authorization_code") {
        const t = state.issue();
        return reply(200, { access_token: t.access, refresh_token: t.refresh, expires_in: 3600 });
      }
      state.refreshCalls++;
      if (!state.valid.has(p.refresh_token!)) return reply(400, { error: "invalid_grant", error_description: "Unknown or reused refresh token" });
      state.valid.delete(p.refresh_token!);
      const t = state.issue();
      reply(200, { access_token: t.access, refresh_token: t.refresh, expires_in: 3600 });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  return state;
}
