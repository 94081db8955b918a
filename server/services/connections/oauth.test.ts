import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConnectionAuthError } from "@/integrations/core/errors";
import { createSecretBox } from "../../crypto/secret-box";
import { createTestDeps } from "../../testing";
import { seedWorkspace } from "../../runner/testing/seed";
import { OAuthCallbackError, beginOAuth, completeOAuth, createConnection, getConnectionOrThrow, loadConnectionHandle } from ".";
import { registerStubOAuth } from "./testing/stub-oauth";
import { startOAuthServer, type OAuthServer } from "./testing/oauth-server";

registerStubOAuth();
let oauth: OAuthServer;
let deps: Awaited<ReturnType<typeof createTestDeps>>;
let key: Buffer;
let ws: Awaited<ReturnType<typeof seedWorkspace>>;

beforeEach(async () => {
  oauth = await startOAuthServer({ delayMs: 150 });
  key = randomBytes(32);
  deps = await createTestDeps({ box: createSecretBox(key) });
  ws = await seedWorkspace(deps);
});
afterEach(async () => {
  await oauth.close();
  await deps.close();
});

async function connected() {
  const con = await createConnection(deps, ws.actor, ws.workspaceId, {
    integration: "stuboauth",
    name: "t",
    config: { tokenUrl: oauth.url, clientId: "cid", clientSecret: "very-secret" },
  });
  expect(con.status).toBe("needs_authorization");
  expect(JSON.stringify(con)).not.toContain("very-secret");
  const { authorizeUrl, state } = await beginOAuth(deps, ws.actor, ws.workspaceId, con.id, { redirectUri: "http://127.0.0.1/cb" });
  expect(authorizeUrl).toContain(`state=${state}`);
  expect(authorizeUrl).toMatch(/code_challenge=[A-Za-z0-9_-]{43}/);
  await expect(completeOAuth(deps, { state, code: "c", userId: "someone-else" })).rejects.toThrow(/another user/);
  const again = await beginOAuth(deps, ws.actor, ws.workspaceId, con.id, { redirectUri: "http://127.0.0.1/cb" });
  const done = await completeOAuth(deps, { state: again.state, code: "c", userId: "usr_test" });
  expect(done.connection.status).toBe("ready");
  return con.id;
}

async function expire(id: string) {
  const row = (await deps.store.connections.getById(id))!;
  const tokens = deps.box.decryptJson<Record<string, unknown>>(row.tokensEnc!);
  await deps.store.connections.update(id, { tokensEnc: deps.box.encryptJson({ ...tokens, expiresAt: Date.now() - 1000 }), tokenExpiresAt: Date.now() - 1000 });
}

describe("OAuth connections", () => {
  it("refreshes once across two processes racing on an expired token (rotating refresh token stored first)", async () => {
    const id = await connected();
    await expire(id);
    const startAt = Date.now() + 1500;
    const child = () =>
      new Promise<string>((resolve) => {
        const p = spawn(process.execPath, ["--import", "tsx", "server/services/connections/testing/oauth-child.ts"], {
          env: { ...process.env, DB_URL: deps.url, SECRET_HEX: key.toString("hex"), CONNECTION_ID: id, START_AT: String(startAt) },
          stdio: ["ignore", "pipe", "inherit"],
        });
        let out = "";
        p.stdout.on("data", (d) => (out += d));
        p.on("exit", () => resolve(out.trim()));
      });
    const [a, b] = await Promise.all([child(), child()]);
    expect(a).toBe("token at-2");
    expect(b).toBe("token at-2");
    expect(oauth.refreshCalls).toBe(1);
    const handle = await loadConnectionHandle(deps, id);
    expect(await handle.oauth!.getAccessToken()).toBe("at-2");
    const row = (await deps.store.connections.getById(id))!;
    expect(deps.box.decryptJson<{ refreshToken: string }>(row.tokensEnc!).refreshToken).toBe("rt-2");
    expect(row.refreshLockOwner).toBeNull();
  }, 30_000);

  it("reactive refresh after a 401, and a refused refresh marks the connection needs_reconnect", async () => {
    const id = await connected();
    const handle = await loadConnectionHandle(deps, id);
    expect(await handle.oauth!.refresh()).toBe(true);
    expect(await handle.oauth!.getAccessToken()).toBe("at-2");
    oauth.valid.clear(); // the upstream revokes the grant
    await expire(id);
    await expect(handle.oauth!.getAccessToken()).rejects.toBeInstanceOf(ConnectionAuthError);
    const view = await getConnectionOrThrow(deps, ws.actor, ws.workspaceId, id);
    expect(view.status).toBe("needs_reconnect");
    expect(view.statusMessage).toContain("invalid_grant");
    await expect(loadConnectionHandle(deps, id)).rejects.toBeInstanceOf(ConnectionAuthError);
  });

  it("a cancelled consent or a refused code exchange names where the flow started, so the browser goes back there with the message", async () => {
    const con = await createConnection(deps, ws.actor, ws.workspaceId, {
      integration: "stuboauth",
      name: "t",
      config: { tokenUrl: oauth.url, clientId: "cid", clientSecret: "very-secret" },
    });
    const returnTo = `/w/${ws.workspaceId}/automations/aut_x`;
    const cancelled = await beginOAuth(deps, ws.actor, ws.workspaceId, con.id, { redirectUri: "http://127.0.0.1/cb", returnTo });
    const err = await completeOAuth(deps, {
      state: cancelled.state,
      providerError: "access_denied: User did not authorize the request",
      userId: "usr_test",
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OAuthCallbackError);
    expect(err).toMatchObject({ workspaceId: ws.workspaceId, returnTo, message: expect.stringContaining("User did not authorize the request") });

    const refused = await beginOAuth(deps, ws.actor, ws.workspaceId, con.id, { redirectUri: "http://127.0.0.1/cb" });
    await oauth.close(); // the token endpoint does not answer
    const err2 = await completeOAuth(deps, { state: refused.state, code: "c", userId: "usr_test" }).catch((e: unknown) => e);
    expect(err2).toBeInstanceOf(OAuthCallbackError);
    expect(err2).toMatchObject({ workspaceId: ws.workspaceId, returnTo: null });
    expect((await getConnectionOrThrow(deps, ws.actor, ws.workspaceId, con.id)).status).toBe("needs_authorization");
    oauth = await startOAuthServer({ delayMs: 150 }); // for afterEach
  });
});
